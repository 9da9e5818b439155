"""RA-RRG stage: key phrases retrieved for the study's views, the RA-RRG draft (a Report of
kind draft, source "rarrg"), and ``rarrg`` detections for unsupported sentences."""
from __future__ import annotations

from django.conf import settings

from radreview.jobs.stages import Stage
from radreview.review.services import store_detections
from radreview.studies.models import Report
from workers.detectors import builtin
from workers.pipeline import StageError
from workers.study import StudyContext

from . import index_store
from .models import StudyRetrieval
from .retrieval_stage import run_or_skip, skipped, study_images, with_thumbnail

SOURCE = "rarrg"


def load(job):
    report = job.study.audited_report
    checkpoint = settings.RARRG_RETRIEVER_CHECKPOINT
    if settings.RARRG_RETRIEVER == "trained":
        index_store.pull(index_store.PHRASE_RETRIEVER)
        if not checkpoint.exists():
            raise StageError(f"RADREVIEW_RARRG_RETRIEVER is 'trained' but {checkpoint} does "
                             "not exist: run python manage.py train_phrase_retriever first.")

    options = {"neighbours": settings.RARRG_NEIGHBOURS,
               "threshold": settings.RARRG_SELECTION_THRESHOLD,
               "retriever_checkpoint": str(checkpoint)
               if settings.RARRG_RETRIEVER == "trained" else None}
    # without a report to audit, RA-RRG still drafts one from the images
    return StudyContext(report.text if report is not None else "",
                        images=study_images(job.study), settings={builtin.RARRG.name: options})


def compute(ctx, models, progress):
    return run_or_skip(builtin.RARRG.run, ctx, models, progress)


def store(job, result) -> dict | None:
    if isinstance(result, dict) and "skipped" in result:
        return skipped(job, result["skipped"])
    study = job.study
    report = study.audited_report
    if report is not None and result.detections:
        store_detections(report, result.detections)
    Report.objects.create(study=study, kind=Report.Kind.DRAFT, text=result.draft, source=SOURCE)
    defaults = {
        "encoder": result.encoder, "encoder_learned": result.encoder_learned,
        "neighbours": [with_thumbnail(n) for n in result.neighbours], "phrases": result.phrases,
        "detail": {"retriever": result.retriever, "detections": len(result.detections),
                   "candidates": result.candidates, "draft_model": result.draft_model,
                   "draft_prompt_version": result.draft_prompt_version},
    }
    StudyRetrieval.objects.update_or_create(study=study, stage=StudyRetrieval.Stage.RARRG,
                                            defaults=defaults)


RARRG = Stage(
    "rarrg", load, compute, store, applies=lambda s: s.has_images and s.will_have_report,
    description="RA-RRG: key phrases of similar reference images; a draft; unsupported sentences",
    label="Comparing with the reports of similar images")
