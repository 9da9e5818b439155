"""Audit stage: every detector declared for the "audit" stage (workers.detectors: the
three-stage correction, the judge, contradicting sentences, comparisons without a prior, the
prior report checks when the patient has an earlier report here, and any a site adds) on one
study context: the audited report read once, the reference library for external retrieval,
the prior report, and the study's images when a detector of the stage needs them.

The library's counts (what the detectors count over the whole library) come with the library:
read back from ``DATA_DIR/cache/library-counts`` once per library version and process, or
counted by the first process that meets that version and kept there for every other (the
reference library changes rarely; counting a big one takes seconds).

Stores each detector's raw detections (``review.services.store_detections``); a raw row is
``flagged`` when its own confidence reaches ``RAW_FLAG_CONFIDENCE`` (what the review page shows
when the site switched the system combination off). The combine stage folds them later.
"""
from __future__ import annotations

from django.db.models import prefetch_related_objects

from radreview.jobs.stages import Stage
from radreview.library import text_library
from radreview.library.retrieval_stage import study_images
from radreview.review.services import store_detections
from radreview.studies.selectors import prior_report, priors_of
from workers import pipeline
from workers.audit.library_counts import count_library
from workers.audit.text import STAGE, audit_context
from workers.detectors import stage_needs
from workers.study import StudyContext
from workers.types import Detection

RAW_FLAG_CONFIDENCE = 0.5


def _iso(value) -> str | None:
    return value.isoformat() if value else None


def load(job) -> StudyContext:
    study = job.study
    report = study.audited_report
    if report is None:
        raise pipeline.StageError("This study has no report to audit.")
    try:
        library = text_library.load_text_library()
    except text_library.LibraryImportError as exc:
        raise pipeline.StageError(exc.message) from exc
    count_library(library, text_library.counts_dir())
    # The patient's most recent earlier report in RadReview, for the prior report checks.
    prior = prior_report(priors_of(study))
    images = study_images(study) if "images" in stage_needs(STAGE) else None
    return StudyContext(report.text, library=library,
                        has_prior=bool(study.has_prior) or prior is not None,
                        prior_report=prior.text if prior else None,
                        prior_date=_iso(prior.study.study_date) if prior else None,
                        date=_iso(study.study_date), images=images)


def compute(ctx: StudyContext, models, progress) -> dict[str, list[Detection]]:
    found = audit_context(ctx, models=models, progress=progress).detections
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


AUDIT = Stage(
    "audit", load, compute, store, ("text_embedder",), applies=lambda s: s.will_have_report,
    description="Audit the report's text: three-stage correction, consistency judge, comparisons",
    label="Checking the report")
