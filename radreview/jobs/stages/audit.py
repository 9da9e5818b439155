"""Audit stage: every detector declared for the "audit" stage (workers.detectors: the
three-stage correction, the judge, contradicting sentences, comparisons without a prior, the
prior report checks when the patient has an earlier report here, and any a site adds) on one
reading of the audited report, with the reference library for external retrieval.

Stores each detector's raw detections (``review.services.store_detections``); a raw row is
``flagged`` when its own confidence reaches ``RAW_FLAG_CONFIDENCE`` (what the review page shows
when the site switched the system combination off). The combine stage folds them later.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import prefetch_related_objects

from radreview.library import text_library
from radreview.review.services import store_detections
from radreview.studies.selectors import prior_report, priors_of
from workers import pipeline
from workers.audit.text import audit_text
from workers.library.text import TextLibrary
from workers.types import Detection

RAW_FLAG_CONFIDENCE = 0.5


@dataclass(frozen=True)
class AuditInputs:
    text: str
    has_prior: bool
    library: TextLibrary | None
    # The patient's most recent earlier report in RadReview, for the prior report checks.
    prior_report: str | None = None
    prior_date: str | None = None
    date: str | None = None


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def load(job) -> AuditInputs:
    study = job.study
    report = study.audited_report
    if report is None:
        raise pipeline.StageError("This study has no report to audit.")
    try:
        library = text_library.load_text_library()
    except text_library.LibraryImportError as exc:
        raise pipeline.StageError(exc.message) from exc
    prior = prior_report(priors_of(study))
    return AuditInputs(report.text, bool(study.has_prior) or prior is not None, library,
                       prior_report=prior.text if prior else None,
                       prior_date=_iso(prior.study.study_date) if prior else None,
                       date=_iso(study.study_date))


def compute(inputs: AuditInputs, models, progress) -> dict[str, list[Detection]]:
    progress(0.1, "retrieving similar reports")
    found = audit_text(inputs.text, models=models, library=inputs.library,
                       has_prior=inputs.has_prior, prior_report=inputs.prior_report,
                       prior_date=inputs.prior_date, date=inputs.date).detections
    progress(1.0, f"{sum(len(d) for d in found.values())} detections")
    return found


def store(job, detections: dict[str, list[Detection]]) -> dict:
    report = job.study.audited_report
    if any(detections.values()):  # a clean report stores no rows: no sentence to read
        prefetch_related_objects([report], "sentences")  # read once for every detector's rows
    counts = {}
    for detector, found in detections.items():
        flagged = [d for d in found if d.confidence >= RAW_FLAG_CONFIDENCE]
        quiet = [d for d in found if d.confidence < RAW_FLAG_CONFIDENCE]
        store_detections(report, flagged, flagged=True)
        store_detections(report, quiet, flagged=False)
        counts[detector] = len(found)
    return {"detections": counts}
