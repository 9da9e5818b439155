"""Preparing reference studies and images for the memory: key phrases, entities, vectors.

The web side (an import, a rebuild) gathers plain ``LibraryStudy`` records from its tables and
calls ``add_to_memory``; nothing here touches a database.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workers.pipeline import Progress, no_progress

from .entities import library_entities
from .memory import ImageMemory, MemoryImage, MemoryStudy
from .phrases import extract_key_phrases
from .query import QueryImage, embed, load_pixels, resolve

ENCODE_BATCH = 16


@dataclass(frozen=True)
class LibraryImage:
    id: int
    path: str          # relative to media_root, or absolute
    kind: str = ""
    view: str = "UNKNOWN"


@dataclass(frozen=True)
class LibraryStudy:
    id: int
    external_id: str
    source: str
    report: str
    images: tuple[LibraryImage, ...] = field(default=())


def describe_study(study: LibraryStudy, extractor=None, llm=None) -> MemoryStudy:
    """The study's key phrases (RA-RRG) and disease entities (V-RAG) for the memory."""

    phrases = extract_key_phrases(study.report, extractor, llm).phrases
    return MemoryStudy(study.id, study.external_id, study.source, study.report, phrases,
                       library_entities(study.report, extractor))


def add_to_memory(memory: ImageMemory, studies: list[LibraryStudy], *, encoder, extractor=None,
                  llm=None, embedder=None, media_root=None,
                  progress: Progress = no_progress) -> int:
    """Describe, embed and add these studies' new images; returns how many images were added.

    Images already in the memory are skipped (an import can be resumed). The caller saves.
    """
    memory.set_encoder(encoder)
    pending = [(s, i) for s in studies for i in s.images if i.id not in memory.images]
    described: dict[int, MemoryStudy] = {}
    total = max(1, len(pending))
    added = 0
    for start in range(0, len(pending), ENCODE_BATCH):
        batch = pending[start:start + ENCODE_BATCH]
        for study, _ in batch:
            if study.id not in described:
                described[study.id] = describe_study(study, extractor, llm)
        pixels = [load_pixels(QueryImage(str(resolve(image.path, media_root)), image.kind))
                  for _, image in batch]
        vectors = embed(encoder, pixels)
        memory.add([described[s.id] for s, _ in batch if s.id not in memory.studies],
                   [MemoryImage(image.id, study.id, image.view, image.path)
                    for study, image in batch], vectors)
        added += len(batch)
        progress(0.9 * added / total, f"{added} of {len(pending)} images embedded")
    # Studies whose report changed but whose images were all there already.
    for study in studies:
        if study.id not in described and study.id in memory.studies \
                and memory.studies[study.id].report != study.report:
            memory.add([describe_study(study, extractor, llm)], [], np.zeros((0, 1)))
    if embedder is not None:
        refresh_phrase_bank(memory, embedder)
    progress(1.0, f"{added} images added")
    return added


def refresh_phrase_bank(memory: ImageMemory, embedder) -> int:
    """Embed the studies' phrases that the bank does not hold yet."""
    if memory.text_embedder not in (None, embedder.name) and memory.phrases:
        texts = list(dict.fromkeys(memory.phrases + memory.missing_phrases()))
        memory.set_phrase_bank(texts, embedder.embed(texts), embedder.name)
        return len(texts)
    missing = memory.missing_phrases()
    if missing:
        memory.extend_phrase_bank(missing, embedder.embed(missing), embedder.name)
    elif memory.text_embedder is None:
        memory.set_phrase_bank([], np.zeros((0, embedder.dim), np.float32), embedder.name)
    return len(missing)
