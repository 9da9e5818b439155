"""The built-in retrieval generator: the generator role's default, with no model weights.

It writes a study's report from the key phrases of the reference studies whose images are
most like the study's (RA-RRG's retrieval-only form), so RadFlag can sample candidate reports
on a site that has no vision-language model. Temperature acts on two softmaxes:

* over the retrieved neighbours: logits are the similarities relative to the best one,
  divided by the spread of the top similarities (so the scale means the same for any
  encoder), then by the temperature. Each sample draws a *lead* neighbour from it;
* over the phrases: a phrase's weight is half its share of the neighbour distribution and half
  whether the lead neighbour states it; a sample keeps as many phrases as its lead report has,
  drawn without replacement with Gumbel noise scaled by the temperature.

At temperature 0.1 the lead is the nearest neighbour and the phrase order barely moves, so the
candidate is near-deterministic; at 1.0 close neighbours take turns as lead and lower-ranked
phrases come in, so samples differ the way sampled reports of a model would. Temperature 0 is
greedy. Samples are deterministic given the generator's seed and the images. The ``prompt``
argument is ignored: there is no language model to instruct.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory.memory import EncoderMismatch, ImageMemoryError, cached_memory, memory_dir
from workers.pipeline import StageError

from .compose import compose_report, truncate_to_words
from .retrieval import ScoredPhrase, resolve_conflicts

GENERATOR_NAME = "builtin-retrieval-generator"
EMPTY_MEMORY_MESSAGE = (
    "The image memory is empty: import reference studies with images (python manage.py "
    "import_reference --images DIR --reports FILE, or the reference library page) before "
    "RadReview can draft reports without a vision-language model, or configure one "
    "(RADREVIEW_GENERATOR).")


def _stage_error(message: str):
    return StageError(message)


class RetrievalGenerator:
    """``Generator`` over the image memory (see the module docstring)."""

    def __init__(self, directory: str | Path, *, encoder=None, seed: int = 0,
                 neighbours: int = 16, memory_options: dict | None = None) -> None:
        self.directory = Path(directory)
        self.name = GENERATOR_NAME
        self.seed = int(seed)
        self.neighbours = int(neighbours)
        self._encoder = encoder
        self._memory_options = memory_options or {}

    def memory(self):
        try:
            memory = cached_memory(self.directory, **self._memory_options)
        except ImageMemoryError as exc:
            raise _stage_error(exc.message) from None
        if memory.is_empty:
            raise _stage_error(EMPTY_MEMORY_MESSAGE)
        return memory

    def _encoder_for(self, memory):
        encoder = self._encoder
        if encoder is None:
            encoder = AppearanceDescriptorEncoder()
        try:
            memory.check_encoder(encoder)
        except EncoderMismatch as exc:
            raise _stage_error(exc.message) from None
        return encoder

    def neighbour_pool(self, images) -> tuple[list, np.ndarray]:
        """The reference studies found by any view (best similarity per study), best first."""
        memory = self.memory()
        encoder = self._encoder_for(memory)
        vectors = encoder.encode([image.pixels for image in images])
        best: dict[int, object] = {}
        for hits in memory.search(vectors, self.neighbours):
            for hit in hits:
                old = best.get(hit.study.id)
                if old is None or hit.similarity > old.similarity:
                    best[hit.study.id] = hit
        pool = sorted(best.values(), key=lambda n: (-n.similarity, n.study.id))
        return pool, np.array([n.similarity for n in pool], dtype=np.float64)

    @staticmethod
    def neighbour_logits(similarities: np.ndarray) -> np.ndarray:
        spread = float(np.std(similarities[:8])) if len(similarities) > 1 else 0.0
        return (similarities - similarities.max()) / max(spread, 1e-3)

    def _digest(self, images) -> int:
        h = hashlib.sha256()
        for image in images:
            h.update(str(image.view).encode())
            h.update(np.ascontiguousarray(image.pixels, dtype=np.float32).tobytes())
        return int.from_bytes(h.digest()[:8], "little")

    def generate(self, images, prompt: str = "", *, temperature: float, n: int,
                 max_tokens: int = 256) -> list[str]:
        if not images:
            raise ValueError("generate() needs at least one image")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        pool, sims = self.neighbour_pool(images)
        if not pool:
            raise _stage_error(EMPTY_MEMORY_MESSAGE)
        logits = self.neighbour_logits(sims)
        greedy = temperature <= 0
        if greedy:
            weights = np.zeros(len(pool))
            weights[0] = 1.0
        else:
            scaled = logits / temperature
            weights = np.exp(scaled - scaled.max())
            weights /= weights.sum()
        share: dict[str, float] = {}
        order: dict[str, int] = {}
        for weight, neighbour in zip(weights, pool):
            for phrase in dict.fromkeys(neighbour.study.phrases):
                share[phrase] = share.get(phrase, 0.0) + float(weight)
                order.setdefault(phrase, len(order))
        phrases = list(share)
        base = np.array([share[p] for p in phrases])
        digest = self._digest(images)
        max_words = max(8, int(max_tokens * 0.7))
        reports = []
        for sample in range(1 if greedy else n):
            rng = np.random.default_rng([self.seed, digest, sample,
                                         int(round(max(temperature, 0.0) * 1000))])
            lead = 0 if greedy else int(rng.choice(len(pool), p=weights))
            lead_phrases = set(pool[lead].study.phrases)
            score = 0.5 * base + 0.5 * np.array([p in lead_phrases for p in phrases], float)
            keys = np.log(np.maximum(score, 1e-9))
            # tie-break by first appearance, so equal scores keep the reports' order
            keys -= 1e-6 * np.array([order[p] for p in phrases])
            if not greedy:
                keys = keys + temperature * rng.gumbel(size=len(phrases))
            count = max(1, len(lead_phrases))
            ranked = [phrases[i] for i in np.argsort(-keys, kind="stable")]
            chosen = resolve_conflicts([ScoredPhrase(p, float(score[phrases.index(p)]))
                                        for p in ranked])[:count]
            # Report order follows the references, not the draw, so equal choices read alike.
            chosen.sort(key=lambda phrase: order[phrase.text])
            reports.append(compose_report(truncate_to_words(chosen, max_words)))
        return reports * n if greedy else reports


def load_builtin_generator(index_dir: str | Path, *, encoder=None, seed: int = 0
                           ) -> RetrievalGenerator:
    """The built-in generator over the image memory under ``index_dir`` (settings.INDEX_DIR).

    Raises ``workers.pipeline.StageError`` when the memory is empty or unreadable.
    """
    generator = RetrievalGenerator(memory_dir(index_dir), encoder=encoder, seed=seed)
    generator.memory()
    return generator
