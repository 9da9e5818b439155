"""RA-RRG for one study: retrieve key phrases for its views, write the draft, audit the report."""
from __future__ import annotations

from dataclasses import dataclass

from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory import EncoderMismatch
from workers.imagememory.access import MemoryUnavailable
from workers.pipeline import Progress, StageError, no_progress
from workers.study import StudyContext
from workers.types import Detection

from .compose import compose_report, compose_with_llm
from .retrieval import (
    DEFAULT_NEIGHBOURS,
    DEFAULT_THRESHOLD,
    PhraseRetrieval,
    pool_views,
    resolve_conflicts,
    select_phrases,
)
from .retriever import load_checkpoint
from .support import unsupported_sentences

DETECTOR = "rarrg"


@dataclass
class RarrgResult:
    draft: str
    phrases: list[dict]          # selected, best first
    candidates: list[dict]       # every scored phrase (the first 30)
    neighbours: list[dict]       # per view, flattened, with "query"
    detections: list[Detection]
    draft_prompt_version: str | None
    draft_model: str | None
    retriever: str               # "knn" or "trained"
    encoder: str
    encoder_learned: bool


def trained_retrieval(checkpoint: str, memory, vectors, threshold: float) -> PhraseRetrieval:
    """Phrases from the trained retriever (one forward pass per view, best score pooled)."""

    model = load_checkpoint(checkpoint)
    per_view = []
    for vector in vectors:
        found = model.retrieve([vector[None, :]], memory.phrase_vectors, memory.phrases,
                               threshold=threshold)
        per_view.append({text: (score, ()) for text, score in found})
    candidates = pool_views(per_view, threshold)
    selected = resolve_conflicts([p for p in candidates if p.score >= threshold])
    return PhraseRetrieval(selected, candidates, [], threshold)


def _bank_lookup(memory, embedder):
    """Phrase vectors from the memory's phrase bank; phrases it lacks are embedded."""
    def vectors(texts):
        ids = [memory.phrase_id(t) for t in texts]
        missing = [t for t, i in zip(texts, ids) if i is None]
        extra = iter(embedder.embed(missing)) if missing else iter(())
        return [memory.phrase_vectors[i] if i is not None else next(extra) for i in ids]
    return vectors if embedder is not None else None


def run_rarrg(ctx: StudyContext, progress: Progress = no_progress, *, image_encoder=None,
              text_embedder=None, llm=None) -> RarrgResult:
    """RA-RRG for one study with the models passed in (None: the role's built-in default):
    the images and the audited report (when there is one) are the study context's; its
    settings: ``neighbours``, ``threshold`` and ``retriever_checkpoint`` (the trained
    retriever instead of the kNN form)."""
    encoder, embedder = image_encoder, text_embedder
    if encoder is None:
        encoder = AppearanceDescriptorEncoder()
    images = ctx.images
    if not images:
        raise StageError("RA-RRG needs the study's images; this study has none.")
    settings = ctx.settings_of(DETECTOR)
    k = settings.get("neighbours", DEFAULT_NEIGHBOURS)
    threshold = settings.get("threshold", DEFAULT_THRESHOLD)
    memory = images.memory_for(encoder)
    if embedder is not None:
        try:
            memory.check_text_embedder(embedder)
        except EncoderMismatch as exc:
            raise MemoryUnavailable(exc.message) from None
    if settings.get("retriever_checkpoint"):
        retrieval = trained_retrieval(settings["retriever_checkpoint"], memory,
                                      images.vectors(encoder), threshold)
        retrieval.neighbours = images.neighbours(encoder, k)
        retriever = "trained"
    else:
        retrieval = select_phrases(images.neighbours(encoder, k), threshold=threshold)
        retriever = "knn"
    progress(0.4, f"{len(retrieval.selected)} key phrases selected")
    if llm is not None and retrieval.selected:
        draft, prompt_version, model = compose_with_llm(llm, retrieval.selected)
    else:
        draft, prompt_version, model = compose_report(retrieval.selected), None, None
    progress(0.6, "draft written")
    detections = []
    if ctx.text:
        detections = unsupported_sentences(ctx, retrieval, embedder, neighbours=k,
                                           phrase_vectors=_bank_lookup(memory, embedder))
    progress(1.0, f"{len(detections)} unsupported sentences")
    neighbours = [n.to_dict() for hits in retrieval.neighbours for n in hits]
    return RarrgResult(draft, [p.to_dict() for p in retrieval.selected],
                       [p.to_dict() for p in retrieval.candidates[:30]], neighbours, detections,
                       prompt_version, model, retriever, encoder.name,
                       bool(getattr(encoder, "learned", True)))
