"""System combination (Lasko et al.): fold detectors in one at a time.

Each detector has a relative weight ``v``. Folding detector d into the running combination,
per sentence s that d examined, with ``V`` the total weight of the detectors folded so far that
examined s::

    w = V / (V + v)                    (w = 0 when no earlier detector examined s)
    aligned pair (a, b):     w·a + (1 − w)·b
    unaligned running (a):   w·a       (interpolated with d's silence, i.e. zero)
    unaligned new (b):       (1 − w)·b (interpolated with the running combination's zero)

so a detection every detector makes with confidence c keeps c, and one made by a single
detector ends at c·v/ΣV. A detector's *scope* is the set of sentences it examined (those it
was given, plus those it flagged): where it did not look, its silence is no vote and discounts
nothing. A *single-purpose* detector (the comparative one looks for comparison wording only)
has no scope at all: its silence says nothing against what the others found.

Alignment (workers.combine.align) needs the explanations' embeddings only where both sides
have a detection on the same sentence, so only those explanations are embedded.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from workers.combine.align import align
from workers.combine.config import CombinationConfig
from workers.types import Detection, Harm

Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class DetectorOutput:
    """One detector's raw detections; ``scope``: the sentences it examined (None = all);
    ``single_purpose``: it looks for one kind of error only, so its silence is never a vote."""

    detector: str
    detections: list[Detection]
    scope: frozenset[int] | None = None
    single_purpose: bool = False


@dataclass
class Combined:
    """A combined detection: ``members`` are (detector, index in that detector's output)."""

    sentence_index: int
    start: int
    end: int
    confidence: float
    members: list[tuple[str, int]]
    explanations: list[str]
    similarities: list[float] = field(default_factory=list)
    removed_by: str | None = None
    # How the confidence came about, one step per detector that moved it (the review panel
    # explains the combined figure from these): see ``_step``.
    steps: list[dict] = field(default_factory=list)

    def vector(self, embed: Embed) -> np.ndarray:
        """The normalised mean of the members' explanation vectors."""
        mean = np.asarray(embed(self.explanations), dtype=np.float64).mean(axis=0)
        return mean / max(float(np.linalg.norm(mean)), 1e-12)


def _weights_so_far(examined: dict[int, float], sentence: int, weight: float) -> float:
    before = examined.get(sentence, 0.0)
    return before / (before + weight) if before + weight > 0 else 0.0


def _identical_single(running: list[Combined], detections: list[Detection], sentence: int
                      ) -> tuple[int, int, float] | None:
    """The pair the alignment must choose on ``sentence`` without any embedding: one side has
    a single detection and the other side a detection with the very same explanation (cosine
    1, the highest there is). None when the alignment has to compare embeddings."""
    theirs = [i for i, c in enumerate(running) if c.sentence_index == sentence]
    mine = [j for j, d in enumerate(detections) if d.sentence_index == sentence]
    if len(theirs) == 1:
        texts = running[theirs[0]].explanations
        for j in mine:
            if len(set(texts)) == 1 and detections[j].explanation == texts[0]:
                return theirs[0], j, 1.0
    if len(mine) == 1:
        for i in theirs:
            texts = running[i].explanations
            if len(set(texts)) == 1 and texts[0] == detections[mine[0]].explanation:
                return i, mine[0], 1.0
    return None


def _step(detector: str, event: str, w: float, after: float, **figures: float) -> dict:
    """``event``: "first" (the first detector to examine the sentence raised it), "alone"
    (raised it after detectors that examined the sentence said nothing), "agreed" (aligned
    with the running detection), "silent" (examined the sentence, raised nothing); ``w``: the
    share of the weight of the detectors folded in before it that examined the sentence."""
    return {"detector": detector, "event": event, "w": round(w, 4), "after": round(after, 4),
            **{key: round(value, 4) for key, value in figures.items()}}


def fold_step(running: list[Combined], name: str, detections: list[Detection],
              scope: frozenset[int], weight: float, examined: dict[int, float],
              threshold: float, embed: Embed) -> list[Combined]:
    """Fold one detector's detections into ``running`` (changed in place and returned)."""
    shared = {c.sentence_index for c in running} & {d.sentence_index for d in detections}
    pairs: list[tuple[int, int, float]] = []
    to_align: set[int] = set()
    for sentence in shared:
        pair = _identical_single(running, detections, sentence)
        if pair is not None:
            pairs.append(pair)
        else:
            to_align.add(sentence)
    theirs = [i for i, c in enumerate(running) if c.sentence_index in to_align]
    mine = [j for j, d in enumerate(detections) if d.sentence_index in to_align]
    if theirs and mine:
        alignment = align([running[i].sentence_index for i in theirs],
                          np.array([running[i].vector(embed) for i in theirs]),
                          [detections[j].sentence_index for j in mine],
                          np.asarray(embed([detections[j].explanation for j in mine])),
                          threshold)
        pairs += [(theirs[a], mine[b], similarity) for a, b, similarity in alignment.pairs]
    paired_running = {i for i, _, _ in pairs}
    paired_new = {j for _, j, _ in pairs}
    for i, j, similarity in pairs:
        item, detection = running[i], detections[j]
        w = _weights_so_far(examined, item.sentence_index, weight)
        before = item.confidence
        item.confidence = w * item.confidence + (1 - w) * detection.confidence
        item.steps.append(_step(name, "agreed", w, item.confidence, before=before,
                                own=detection.confidence, similarity=similarity))
        item.members.append((name, j))
        item.explanations.append(detection.explanation)
        item.similarities.append(similarity)
        item.start, item.end = min(item.start, detection.start), max(item.end, detection.end)
    for i, item in enumerate(running):
        if i not in paired_running and item.sentence_index in scope:
            w = _weights_so_far(examined, item.sentence_index, weight)
            before = item.confidence
            item.confidence *= w
            item.steps.append(_step(name, "silent", w, item.confidence, before=before))
    for j, detection in enumerate(detections):
        if j in paired_new:
            continue
        w = _weights_so_far(examined, detection.sentence_index, weight)
        confidence = (1 - w) * detection.confidence
        running.append(Combined(detection.sentence_index, detection.start, detection.end,
                                confidence, [(name, j)], [detection.explanation],
                                steps=[_step(name, "alone" if w else "first", w, confidence,
                                             own=detection.confidence)]))
    for sentence in scope:
        examined[sentence] = examined.get(sentence, 0.0) + weight
    return running


def fold(outputs: list[DetectorOutput], config: CombinationConfig, embed: Embed,
         sentences: list[int]) -> list[Combined]:
    """Fold the detectors' outputs in the configured order; confidences as above. Flags and
    filter rules are applied by ``workers.combine.combine``."""
    everywhere = frozenset(sentences)
    taking_part = {o.detector: o for o in outputs if config.takes_part(o.detector)}
    running: list[Combined] = []
    examined: dict[int, float] = {}
    for name in config.ordered(taking_part):
        output = taking_part[name]
        if output.single_purpose:
            scope = frozenset()
        else:
            scope = (everywhere if output.scope is None else output.scope) | {
                d.sentence_index for d in output.detections}
        fold_step(running, name, output.detections, scope, config.weight(name), examined,
                  config.similarity_threshold, embed)
    running.sort(key=lambda c: (c.sentence_index, -c.confidence))
    return running


def member_detections(item: Combined, outputs: dict[str, list[Detection]]) -> list[Detection]:
    return [outputs[name][j] for name, j in item.members]


def combined_detection(item: Combined, outputs: dict[str, list[Detection]],
                       config: CombinationConfig) -> Detection:
    """The ``detector="combined"`` Detection of an item: the most confident member's
    explanation, the most harmful member's harm, the most confident member's suggestion."""
    members = member_detections(item, outputs)
    lead = max(members, key=lambda d: d.confidence)
    harm = max((d.harm for d in members), key=lambda h: Harm(h).rank)
    suggestion = next((d.suggestion for d in sorted(members, key=lambda d: -d.confidence)
                       if d.suggestion is not None), None)
    evidence = {
        "members": [{"detector": name, "confidence": round(outputs[name][j].confidence, 3),
                     "explanation": outputs[name][j].explanation} for name, j in item.members],
        "similarities": [round(s, 3) for s in item.similarities],
        "weights": {name: config.weight(name) for name, _ in item.members},
        "threshold": config.flag_threshold,
        "filtered_by": item.removed_by,
        "steps": item.steps,
    }
    return Detection(
        sentence_index=item.sentence_index, start=item.start, end=item.end, detector="combined",
        explanation=lead.explanation, harm=harm, confidence=round(min(1.0, item.confidence), 4),
        evidence=evidence, suggestion=suggestion)
