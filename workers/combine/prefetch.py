"""Embedding the explanations the combination compares in one model call instead of many.

The alignment (``fold``) asks for a few explanation vectors at a time, on the sentences two
detectors share; on a sentence model each call costs far more than the texts in it, and most
explanations are never compared, so embedding all of them is slower still. A dry run of the
fold with vectors of zeros (no pair reaches the similarity threshold, so nothing merges)
names the texts the real fold asks for: the same explanations, as a merged detection asks for
its members' explanations, which the dry run asks for one by one. Those are embedded in one
batch; the real fold then reads them, and any text the dry run did not name (a merge that
skipped an identical-explanation shortcut) still goes to ``embed``, so the result is the
real fold's whatever the dry run missed.
"""
from __future__ import annotations

import numpy as np

from workers.combine.config import CombinationConfig
from workers.combine.fold import DetectorOutput, Embed, fold


def compared_explanations(outputs: list[DetectorOutput], config: CombinationConfig,
                          sentences: list[int]) -> list[str]:
    """The distinct explanations a fold of ``outputs`` will embed (as far as a dry run with
    zero vectors tells), in the order it first asks for them."""
    taking_part = [o for o in outputs if config.takes_part(o.detector)]
    seen: dict[int, str] = {}
    if not any(seen.setdefault(d.sentence_index, o.detector) != o.detector
               for o in taking_part for d in o.detections):
        return []  # no sentence two detectors share: the fold compares nothing
    asked: list[str] = []

    def record(texts: list[str]) -> np.ndarray:
        texts = list(texts)
        asked.extend(texts)
        return np.zeros((len(texts), 1))

    fold(outputs, config, record, sentences)
    return list(dict.fromkeys(asked))


def prefetched(embed: Embed, texts: list[str]) -> Embed:
    """An ``Embed`` that answers ``texts`` from one call of ``embed`` and sends any other
    text to ``embed`` (kept for the next ask)."""
    vectors: dict[str, np.ndarray] = {}
    if texts:
        vectors.update(zip(texts, np.asarray(embed(texts)), strict=True))

    def lookup(asked: list[str]) -> np.ndarray:
        asked = list(asked)
        missing = list(dict.fromkeys(t for t in asked if t not in vectors))
        if missing:
            vectors.update(zip(missing, np.asarray(embed(missing)), strict=True))
        return np.stack([vectors[t] for t in asked])

    return lookup
