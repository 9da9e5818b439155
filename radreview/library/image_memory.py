"""The site's image memory seen from Django: where it is, filling it from the reference tables,
rebuilding it, and its status for the library page.

The tables (ReferenceStudy, ReferenceImage) are the source of truth; the memory under
``settings.INDEX_DIR/image_memory`` is derived from them and can always be rebuilt
(``python manage.py rebuild_image_index``), e.g. after switching the image encoder.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings

from radreview.studies import storage
from workers.backends import registry
from workers.imagememory import (
    ImageMemory,
    ImageMemoryError,
    LibraryImage,
    LibraryStudy,
    add_to_memory,
    memory_dir,
    memory_lock,
    read_summary,
)
from workers.pipeline import Progress, no_progress

from . import index_store
from .models import ReferenceImage, ReferenceStudy


def directory() -> Path:
    return memory_dir(settings.INDEX_DIR)


def options() -> dict:
    """The FAISS settings the memory is opened with."""
    from workers.retrieval.index import HnswParams  # noqa: PLC0415 - defer faiss

    return {"hnsw": HnswParams(m=settings.HNSW_M, ef_construction=settings.HNSW_EF_CONSTRUCTION,
                               ef_search=settings.HNSW_EF_SEARCH),
            "exact_below": settings.INDEX_EXACT_BELOW}


def library_studies(studies) -> list[LibraryStudy]:
    """Plain records of these reference studies and their images (for the workers)."""
    out = []
    for study in studies.prefetch_related("images"):
        images = tuple(LibraryImage(image.pk, image.file.name, image.kind, image.view)
                       for image in study.images.all() if image.file)
        if images:
            out.append(LibraryStudy(study.pk, study.external_id, study.source, study.report,
                                    images))
    return out


def _roles():

    return {"encoder": registry.image_encoder(), "extractor": registry.extractor(),
            "llm": registry.llm(), "embedder": registry.text_embedder()}


def rebuild(progress: Progress = no_progress, batch: int = 500) -> ImageMemory:
    """A new memory of every reference image, with the encoder and roles configured now."""
    roles = _roles()
    ids = list(ReferenceStudy.objects.filter(images__isnull=False).distinct()
               .order_by("pk").values_list("pk", flat=True))
    with index_store.writing(index_store.IMAGE_MEMORY) as publish, memory_lock(directory()):
        memory = ImageMemory(directory(), **options())
        memory.set_encoder(roles["encoder"])
        for start in range(0, len(ids), batch):
            chunk = ReferenceStudy.objects.filter(pk__in=ids[start:start + batch])
            studies = library_studies(chunk)
            done = start / max(1, len(ids))

            size = len(studies)

            def step(fraction, note="", done=done, size=size):
                progress(done + fraction * size / max(1, len(ids)), note)
            with storage.local_copies():  # reference images fetched where media are in S3
                root = storage.local_root(image.path for study in studies
                                          for image in study.images)
                add_to_memory(memory, studies, media_root=root, progress=step, **roles)
        memory.save()
        publish()
    progress(1.0, f"{len(memory)} images in the rebuilt memory")
    return memory


@dataclass(frozen=True)
class MemoryStatus:
    images: int
    studies: int
    phrases: int
    encoder: str | None
    encoder_dim: int | None
    learned: bool | None
    text_embedder: str | None
    index_kind: str
    generation: str | None
    reference_images: int
    reference_studies_with_images: int
    error: str | None = None

    @property
    def out_of_date(self) -> bool:
        return self.images != self.reference_images


def status() -> MemoryStatus:
    """The memory's counts and encoder from its summary (no index is loaded): the published
    version's, from the object store, else this host's."""
    reference_images = ReferenceImage.objects.count()
    with_images = ReferenceStudy.objects.filter(images__isnull=False).distinct().count()
    try:
        pointer = index_store.published(index_store.IMAGE_MEMORY)
        summary = pointer["meta"] if pointer else read_summary(directory()) or {}
    except ImageMemoryError as exc:
        return MemoryStatus(0, 0, 0, None, None, None, None, "exact", None, reference_images,
                            with_images, exc.message)
    except index_store.FAILURES as exc:
        return MemoryStatus(0, 0, 0, None, None, None, None, "exact", None, reference_images,
                            with_images, f"The object store cannot be read ({type(exc).__name__}).")
    encoder = summary.get("encoder") or {}
    return MemoryStatus(summary.get("images", 0), summary.get("studies", 0),
                        summary.get("phrases", 0), encoder.get("name"), encoder.get("dim"),
                        encoder.get("learned"), summary.get("text_embedder"),
                        summary.get("index_kind", "exact"), summary.get("generation"),
                        reference_images, with_images)
