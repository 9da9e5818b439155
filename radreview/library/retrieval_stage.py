"""What the stages that read images share: the study's images for its study context (the
views, the image memory's place and settings), neighbours made traceable and linkable."""
from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from radreview.audit.services import record_event
from radreview.studies import storage
from radreview.studies.storage import original_path
from workers.imagememory import QueryImage
from workers.imagememory.access import MemoryUnavailable
from workers.study.images import StudyImages

from . import index_store
from .image_memory import options


def query_images(study) -> tuple[QueryImage, ...]:
    return tuple(QueryImage(str(original_path(image)), image.kind, image.view, image.pk)
                 for image in study.images.order_by("position", "id"))


def study_images(study) -> StudyImages | None:
    """The study's images for its study context (None: it has none)."""
    queries = query_images(study)
    if not queries:
        return None
    index_store.pull(index_store.IMAGE_MEMORY)
    return StudyImages(queries, index_dir=index_dir(), media_root=str(settings.MEDIA_ROOT),
                       memory_options=memory_options(),
                       reference_file=_fetched if storage.in_bucket() else None)


def _fetched(name: str) -> str:
    """A reference image fetched from the object store for the stage that runs (the runner's
    ``local_copies``)."""
    return str(storage.local_path(name))


def memory_options() -> dict:
    return options()


def index_dir() -> str:
    return str(settings.INDEX_DIR)


def with_thumbnail(neighbour: dict) -> dict:
    """The neighbour with the same-site URLs of its thumbnail and its reference study."""
    out = dict(neighbour)
    if neighbour.get("image_id") is not None:
        out["thumbnail_url"] = reverse("images:reference_thumbnail", args=[neighbour["image_id"]])
    if neighbour.get("reference_id") is not None:
        out["reference_url"] = reverse("images:reference_study", args=[neighbour["reference_id"]])
    return out


def link_detections(detections) -> None:
    """Give every neighbour in the detections' evidence its thumbnail URL (in place)."""
    for detection in detections:
        neighbours = detection.evidence.get("neighbours")
        if isinstance(neighbours, list):
            detection.evidence["neighbours"] = [with_thumbnail(n) for n in neighbours]


def skipped(job, reason: str) -> dict:
    """An image stage that could not use the image memory: the study goes on, the job's
    result (returned for the runner to store) and the audit trail say why, and the study
    page shows it."""
    record_event("image_stage_skipped", study=job.study,
                 detail={"stage": job.stage, "reason": reason[:500]})
    return {"skipped": reason}


def run_or_skip(run, inputs, models, progress):
    """``run(inputs, models, progress)``, or ``{"skipped": why}`` when the memory cannot
    serve."""

    try:
        return run(inputs, models, progress)
    except MemoryUnavailable as exc:
        progress(1.0, "skipped")
        return {"skipped": exc.message}
