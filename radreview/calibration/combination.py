"""The system combination's calibration on the site: its examples from the reviewed studies,
fitting a version, activating it, and the ``ScoreCalibration`` the combine stage flags with.

The method is in workers/combine/calibration.py (isotonic probability on one half of the
reviewed studies, conformal display threshold on the other); the labels are decisions.py's.
Like RadFlag's calibrations, versions are never edited and activation is an append-only log.
"""
from __future__ import annotations

import logging

from django.conf import settings

from radreview.accounts.permissions import require_site_admin
from radreview.audit.services import record_event
from radreview.detectors.models import CombinationSettings, DetectorWeight
from radreview.jobs.models import Job
from workers.combine import calibration as method
from workers.radflag.calibration import CalibrationInputError

from . import decisions
from .models import CombinationActivation, CombinationCalibration
from .services import CalibrationRejected, append_activation, create_versioned

logger = logging.getLogger(__name__)


def _combined_studies() -> set[int]:
    """Studies whose combine stage ran with the combination switched on."""
    done = Job.objects.filter(stage="combine", state=Job.State.DONE, study__isnull=False)
    return {study for study, result in done.values_list("study_id", "result")
            if isinstance(result, dict) and result.get("combined") is not None}


def examples() -> list[method.Example]:
    """One example per labelled sentence of a reviewed study the combination ran on: its
    highest combined score (None without a combined row) and the radiologist's verdict."""
    combined = _combined_studies()
    found = []
    for item in decisions.reviewed_studies(with_detections=True):
        if item.study.pk not in combined or item.report is None:
            continue
        scores: dict[int, float] = {}
        for row in item.report.detections.all():
            scores[row.sentence_index] = max(scores.get(row.sentence_index, 0.0), row.confidence)
        found += [method.Example(scores.get(s.sentence.index), not s.factual, str(item.study.pk))
                  for s in item.sentences]
    return found


def readiness(alpha) -> method.Readiness:
    return method.readiness(examples(), alpha, settings.COMBINATION_CALIBRATION_MINIMUM)


def settings_snapshot() -> dict:
    """The combination settings a score depends on: a fit holds for these only."""
    rows = list(DetectorWeight.objects.all())
    return {"weights": {row.detector: row.weight for row in rows},
            "order": [row.detector for row in rows],
            "similarity_threshold": CombinationSettings.current().similarity_threshold}


def fit(*, alpha, actor=None) -> CombinationCalibration:
    """Fit a new version on the decisions so far; refused (with the reason) when too few.
    ``actor`` None: the operator, from the command line."""
    if actor is not None:
        require_site_admin(actor)
    try:
        result = method.fit(examples(), alpha=alpha,
                            minimum=settings.COMBINATION_CALIBRATION_MINIMUM)
    except CalibrationInputError as exc:
        raise CalibrationRejected(exc.message) from None
    except ValueError as exc:
        raise CalibrationRejected(str(exc)) from None
    calibration = create_versioned(
        CombinationCalibration, created_by=actor, alpha=result.alpha, threshold=result.threshold,
        studies=result.studies, sentences=result.sentences, wrong=result.wrong,
        right=result.right, result={**result.as_dict(), "settings": settings_snapshot()})
    record_event("combination_calibration_created", actor=actor, detail={
        "calibration": calibration.pk, "version": calibration.version, "alpha": result.alpha,
        "threshold": result.threshold, "sentences": result.sentences})
    logger.info("combination calibration %s fitted on %s sentences", calibration.version,
                result.sentences)
    return calibration


def activate(calibration: CombinationCalibration | None, *, actor=None) -> CombinationActivation:
    """Flag with ``calibration`` from now on (None: the raw score and the site threshold)."""
    return append_activation(CombinationActivation, calibration, actor=actor,
                             event="combination_calibration_activated")


def active() -> CombinationCalibration | None:
    latest = CombinationActivation.objects.select_related("calibration").order_by("-id").first()
    return latest.calibration if latest else None


def score_calibration(calibration: CombinationCalibration) -> method.ScoreCalibration:
    return method.ScoreCalibration(
        method.ProbabilityMap.from_dict(calibration.result["map"]), calibration.threshold,
        calibration.alpha, version=calibration.version, calibration_id=calibration.pk)


def active_score_calibration() -> method.ScoreCalibration | None:
    calibration = active()
    return score_calibration(calibration) if calibration is not None else None
