"""Calibration writes: start a run, store its result as a new version, activate, record flags.

Every change is noted in the audit trail. Calibrations are never edited: a new file or new
settings make a new version, and activation is an append-only log.
"""
from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max

from radreview.accounts.permissions import require_site_admin
from radreview.audit.services import record_event
from radreview.errors import ServiceError
from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.studies.storage import write_media_atomically
from workers import pipeline
from workers.detectors.builtin import RADFLAG
from workers.radflag import calibration as crc
from workers.radflag.flags import FlagOutcome, Thresholds, default_lambda1

from .export import reviewed_studies
from .models import Activation, Calibration, StudyRadFlag

logger = logging.getLogger(__name__)

CALIBRATE_STAGE = "calibrate"


class CalibrationRejected(ServiceError):
    """A calibration request we refuse; ``message`` says why (and which line, for a file)."""


@dataclass(frozen=True)
class RunRequest:
    data: bytes
    file_name: str
    alpha: float
    target_report_rate: float | None = None
    per_category: bool = False


def check_run(request: RunRequest) -> list:
    """Validate the settings and the file's structure (cheap: no scoring) before queueing."""
    limit = settings.RADFLAG_MAX_CALIBRATION_MB * 1024 * 1024
    if len(request.data) > limit:
        raise CalibrationRejected(f"{request.file_name}: the file is larger than "
                                  f"{settings.RADFLAG_MAX_CALIBRATION_MB} MB.")
    try:
        crc.check_alpha(request.alpha)
        crc.check_target_rate(request.target_report_rate)
        return crc.read_lines(request.data.splitlines(), source=request.file_name or "upload")
    except crc.CalibrationInputError as exc:
        raise CalibrationRejected(exc.message) from None
    except UnicodeDecodeError:
        raise CalibrationRejected(f"{request.file_name}: the file is not UTF-8 text.") from None


def start_run(request: RunRequest, *, actor) -> Job:
    """Check the request, keep the file, and queue the calibration as a site job."""
    require_site_admin(actor)
    records = check_run(request)
    digest = hashlib.sha256(request.data).hexdigest()
    relative = write_media_atomically(
        f"calibration/uploads/{time.strftime('%Y%m%d-%H%M%S')}-{digest[:16]}.jsonl", request.data)
    raw = sum(1 for record in records if isinstance(record, crc.RawReport))
    params = {
        "path": relative, "file_name": request.file_name[:255], "sha256": digest,
        "alpha": request.alpha, "target_report_rate": request.target_report_rate,
        "per_category": request.per_category, "reports": len(records), "raw_reports": raw,
    }
    # Raw reports are scored by the entailment role, which may run on local weights.
    queue = pipeline.queue_for(("llm",)) if raw else "cpu"
    with transaction.atomic():
        job = jobs.start_site_job(CALIBRATE_STAGE, params, actor=actor, queue=queue)
        record_event("calibration_run_started", actor=actor, detail={
            "job": job.pk, "file": params["file_name"], "sha256": digest, "alpha": request.alpha,
            "target_report_rate": request.target_report_rate, "per_category": request.per_category,
            "reports": len(records),
        })
    logger.info("calibration run %s queued (%s reports, %s raw)", job.pk, len(records), raw)
    return job


def create_calibration(result: crc.CalibrationResult, *, file_name: str, sha256: str,
                       path: str = "", actor=None, job: Job | None = None) -> Calibration:
    """Store a calibration result as the next version (the site job calls this inside its
    store transaction; ``calibrate --save`` from the command line)."""
    calibration = create_versioned(
        Calibration, created_by=actor, job=job, source_name=file_name[:255],
        source_path=path, source_sha256=sha256, alpha=result.alpha,
        target_report_rate=result.target_report_rate, per_category=result.per_category,
        n_samples=result.n_samples, n_reports=result.n_reports,
        n_sentences=result.n_sentences, lambda1=result.lambda1,
        lambda1_by_category=result.lambda1_by_category, lambda2=result.lambda2,
        risk_at_lambda1=result.risk_at_lambda1,
        adjusted_risk_at_lambda1=result.adjusted_risk_at_lambda1,
        sentence_flag_rate=result.sentence_flag_rate,
        report_flag_rate=result.report_flag_rate, result=result.as_dict(),
    )
    record_event("calibration_created", actor=actor, detail={
        "calibration": calibration.pk, "version": calibration.version,
        "job": job.pk if job else None,
        "lambda1": calibration.lambda1, "lambda2": calibration.lambda2, "alpha": calibration.alpha,
    })
    return calibration


def create_versioned(model, **fields):
    """A new row of a versioned model (Calibration, CombinationCalibration) as the next
    version; two runs that finish at once get two versions."""
    for attempt in range(3):
        version = (model.objects.aggregate(top=Max("version"))["top"] or 0) + 1
        try:
            with transaction.atomic():
                return model.objects.create(version=version, **fields)
        except IntegrityError:  # another run took this version number first
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def append_activation(log, calibration, *, actor, event: str):
    """Append to an activation log (the latest row wins) and note it in the audit trail.
    ``actor`` None: the operator, from the command line."""
    if actor is not None:
        require_site_admin(actor)
    with transaction.atomic():
        previous = log.objects.order_by("-id").first()
        activation = log.objects.create(calibration=calibration, activated_by=actor)
        record_event(event, actor=actor, detail={
            "calibration": calibration.pk if calibration else None,
            "version": calibration.version if calibration else None,
            "previous": previous.calibration_id if previous else None,
        })
    return activation


def activate(calibration: Calibration | None, *, actor) -> Activation:
    """Make ``calibration`` the one RadFlag flags with (None: back to the default thresholds)."""
    activation = append_activation(Activation, calibration, actor=actor,
                                   event="calibration_activated")
    logger.info("calibration %s activated", calibration.version if calibration else "defaults")
    return activation


def active_calibration() -> Calibration | None:
    latest = Activation.objects.select_related("calibration").order_by("-id").first()
    return latest.calibration if latest else None


def thresholds_of(calibration: Calibration | None) -> Thresholds:
    """The thresholds RadFlag uses: the calibration's, or the site defaults."""

    if calibration is None:
        n = settings.RADFLAG_SAMPLES
        return Thresholds(lambda1=default_lambda1(settings.RADFLAG_DEFAULT_MIN_SUPPORT, n),
                          lambda2=settings.RADFLAG_DEFAULT_LAMBDA2, n_samples=n)
    chosen = calibration.lambda2
    return Thresholds(
        lambda1=calibration.lambda1,
        lambda2=chosen if chosen is not None else settings.RADFLAG_DEFAULT_LAMBDA2,
        n_samples=calibration.n_samples,
        lambda1_by_category=dict(calibration.lambda1_by_category or {}),
        calibration_id=calibration.pk, calibration_version=calibration.version,
        lambda2_default=calibration.lambda2 is None, alpha=calibration.alpha,
    )


def active_thresholds() -> Thresholds:
    return thresholds_of(active_calibration())


def record_study_result(study, report, thresholds: Thresholds, outcome: FlagOutcome | None,
                        n_samples: int, note: str = "") -> StudyRadFlag | None:
    """Keep what RadFlag concluded for a study and which calibration it used (stage store)."""
    if outcome is None:
        return None
    lambda1 = thresholds.lambda1_for("", n_samples)
    row, _ = StudyRadFlag.objects.update_or_create(study=study, defaults={
        "report": report, "calibration_id": thresholds.calibration_id, "n_samples": n_samples,
        "lambda1": lambda1, "lambda2": outcome.lambda2, "thresholds": thresholds.as_dict(),
        "scored_sentences": len(outcome.sentences), "flagged_sentences": outcome.flagged_sentences,
        "report_flagged": outcome.report_flagged,
        "sentences": [s.as_dict() for s in outcome.sentences], "note": note[:300],
    })
    if outcome.report_flagged:
        record_event("report_flagged", study=study, detail={
            "detector": RADFLAG.name, "flagged_sentences": outcome.flagged_sentences,
            "lambda2": outcome.lambda2, "calibration": thresholds.calibration_id,
        })
    return row


def export_reviewed(*, actor, n_samples: int | None = None):
    """The reviewed studies as a calibration file (see export.py), noted in the audit trail."""

    require_site_admin(actor)
    export = reviewed_studies(n_samples)
    record_event("calibration_exported", actor=actor, detail=export_detail(export))
    return export


def export_detail(export) -> dict:
    """What the audit trail keeps of an export of the reviewed studies."""
    return {"reports": len(export.records), "sentences": export.sentences,
            "n_samples": export.n_samples, "left_out": export.left_out,
            "left_out_other_n": export.left_out_other_n}
