"""Sample stage (RadFlag): the candidate report when none was uploaded, and the n samples.

Each generated text is stored as a Report of kind candidate / sample with its temperature,
its sample index and the generator's name as its source; the candidate's drafting model and its
version are noted for the drafting-quality page (radreview/compare).
"""
from __future__ import annotations

from django.conf import settings

from radreview.audit.services import record_event
from radreview.compare import services as drafting
from radreview.jobs.stages import Stage
from radreview.library import index_store
from radreview.studies.models import Image, Report
from radreview.studies.storage import original_path
from workers.backends import registry
from workers.radflag import stages


def load(job) -> stages.SampleInputs:
    study = job.study
    uploaded = study.reports.filter(kind=Report.Kind.UPLOADED).exists()
    index_store.pull(index_store.IMAGE_MEMORY)  # the built-in retrieval generator's
    images = tuple(
        stages.ImageForSampling(path=str(original_path(image)), kind=image.kind,
                                view="" if image.view == Image.View.UNKNOWN else image.view)
        for image in study.images.order_by("position", "id")
    )
    return stages.SampleInputs(
        images=images, need_candidate=not uploaded, n=settings.RADFLAG_SAMPLES,
        temperature=settings.RADFLAG_TEMPERATURE,
        candidate_temperature=settings.RADFLAG_CANDIDATE_TEMPERATURE,
        max_tokens=settings.RADFLAG_MAX_TOKENS, index_dir=str(settings.INDEX_DIR),
    )


def compute(inputs: stages.SampleInputs, models, progress) -> stages.SampleResult:
    generator = models["generator"]
    # the image encoder serves the built-in retrieval generator only
    encoder = models["image_encoder"] if generator is None else None
    return stages.sample(inputs, progress, generator=generator, image_encoder=encoder)


def store(job, result: stages.SampleResult) -> dict:
    study = job.study
    if result.skipped:
        record_event("radflag_skipped", study=study,
                     detail={"stage": "sample", "reason": result.skipped})
        return {"skipped": result.skipped}
    if result.candidate is not None:
        candidate = Report.objects.create(
            study=study, kind=Report.Kind.CANDIDATE, text=result.candidate.text,
            source=result.source[:200], temperature=result.candidate.temperature)
        # the version as this worker loaded it: the settings may change before it is signed
        drafting.note_draft(candidate, result.source, registry.version_of("generator"))
    Report.objects.bulk_create(
        Report(study=study, kind=Report.Kind.SAMPLE, text=sample.text, source=result.source[:200],
               temperature=sample.temperature, sample_index=sample.sample_index)
        for sample in result.samples
    )
    return {"generator": result.source, "samples": len(result.samples),
            "candidate": result.candidate is not None}


SAMPLE = Stage(
    "sample", load, compute, store, ("generator", "image_encoder"),
    applies=lambda s: s.has_images and not s.has_samples and s.will_have_report,
    description="RadFlag: draft the candidate (when no report was uploaded) and the n samples",
    label="Drafting reports from the images")
