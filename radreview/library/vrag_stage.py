"""V-RAG stage: entity probing of the audited report against the most similar reference
images; a ``vrag`` detection per disagreement, the rewritten report as a draft."""
from __future__ import annotations

from django.conf import settings

from radreview.jobs.stages import Stage
from radreview.review.services import store_detections
from radreview.studies.models import Report
from workers import pipeline
from workers.detectors import builtin
from workers.study import StudyContext

from .models import StudyRetrieval
from .retrieval_stage import link_detections, run_or_skip, skipped, study_images, with_thumbnail

SOURCE = "vrag"


def load(job):
    report = job.study.audited_report
    if report is None:
        raise pipeline.StageError("V-RAG audits the study's report, and this study has none.")

    return StudyContext(report.text, images=study_images(job.study),
                        settings={builtin.VRAG.name: {"top_k": settings.VRAG_TOP_K}})


def compute(ctx, models, progress):
    return run_or_skip(builtin.VRAG.run, ctx, models, progress)


def store(job, result) -> dict | None:
    if isinstance(result, dict) and "skipped" in result:
        return skipped(job, result["skipped"])
    study = job.study
    link_detections(result.detections)
    store_detections(study.audited_report, result.detections)
    Report.objects.create(study=study, kind=Report.Kind.DRAFT, text=result.rewrite,
                          source=SOURCE)
    defaults = {
        "encoder": result.encoder, "encoder_learned": result.encoder_learned,
        "neighbours": [with_thumbnail(n) for n in result.neighbours], "probes": result.probes,
        "detail": {"omissions": result.omissions, "detections": len(result.detections),
                   "rewrite_model": result.rewrite_model,
                   "rewrite_prompt_version": result.rewrite_prompt_version},
    }
    StudyRetrieval.objects.update_or_create(study=study, stage=StudyRetrieval.Stage.VRAG,
                                            defaults=defaults)


VRAG = Stage(
    "vrag", load, compute, store, applies=lambda s: s.has_images and s.will_have_report,
    description="V-RAG: probe the report's findings against the most similar reference images",
    label="Comparing with similar reference images")
