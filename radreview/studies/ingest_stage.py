"""Ingest stage: previews and thumbnails of a study's images."""
from __future__ import annotations

from radreview.jobs.stages import Stage
from workers import pipeline

from .storage import original_path, write_media_atomically


def load(job) -> list[pipeline.ImageToIngest]:
    return [
        pipeline.ImageToIngest(image_id=image.pk, kind=image.kind, path=str(original_path(image)))
        for image in job.study.images.all()
    ]


def compute(images: list[pipeline.ImageToIngest], models, progress) -> list[pipeline.IngestedImage]:
    return pipeline.ingest(images, progress)


def store(job, results: list[pipeline.IngestedImage]) -> None:
    study = job.study
    images = {image.pk: image for image in study.images.all()}
    for result in results:
        image = images[result.image_id]
        image.preview = write_media_atomically(
            f"studies/{study.pk}/previews/{image.pk}.png", result.preview_png
        )
        image.thumbnail = write_media_atomically(
            f"studies/{study.pk}/previews/{image.pk}-thumb.png", result.thumbnail_png
        )
        image.save(update_fields=["preview", "thumbnail"])


INGEST = Stage("ingest", load, compute, store, applies=lambda s: s.has_images,
               description="Decode images and make previews", label="Reading the images")
