"""RA-RRG's simple retriever: key phrases for an image from its nearest reference images.

For one query image, each of its k nearest reference studies votes for the key phrases of its
report with a weight that grows with its image similarity. A phrase's *selection score* is the
weighted share of neighbours whose report states it (0 … 1); phrases scoring at least the
selection threshold (default 0.4) are selected. A multi-view study is searched view by view
and pooled: a phrase's score is its best score over the views, so a finding seen only on the
lateral view still comes through. Contradicting selections ("no pleural effusion" and
"small left pleural effusion") are resolved in favour of the higher score.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from workers.imagememory.access import SIMILARITY_SCALE, similarity_weights
from workers.imagememory.entities import statements
from workers.imagememory.memory import Neighbour
from workers.imagememory.phrases import covered, finding_key
from workers.nlp.vocabulary import ancestors

DEFAULT_THRESHOLD = 0.4
DEFAULT_NEIGHBOURS = 10


@dataclass(frozen=True)
class ScoredPhrase:
    text: str
    score: float
    views: tuple[int, ...] = ()       # the query images whose neighbours selected it
    studies: tuple[int, ...] = ()     # the reference studies whose reports state it

    def to_dict(self) -> dict:
        return {"text": self.text, "score": round(float(self.score), 4),
                "views": list(self.views), "studies": list(self.studies)}


@dataclass
class PhraseRetrieval:
    selected: list[ScoredPhrase]
    candidates: list[ScoredPhrase]
    neighbours: list[list[Neighbour]] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD

    @property
    def texts(self) -> list[str]:
        return [p.text for p in self.selected]


def view_scores(neighbours: list[Neighbour], scale: float = SIMILARITY_SCALE
                ) -> dict[str, tuple[float, tuple[int, ...]]]:
    """phrase → (selection score, supporting reference studies) for one query image."""
    if not neighbours:
        return {}
    weights = similarity_weights([n.similarity for n in neighbours], scale)
    scores: dict[str, float] = {}
    studies: dict[str, list[int]] = {}
    for weight, neighbour in zip(weights, neighbours):
        for phrase in dict.fromkeys(neighbour.study.phrases):
            scores[phrase] = scores.get(phrase, 0.0) + float(weight)
            studies.setdefault(phrase, []).append(neighbour.study.id)
    return {p: (min(1.0, s), tuple(studies[p])) for p, s in scores.items()}


def pool_views(per_view: list[dict[str, tuple[float, tuple[int, ...]]]],
               threshold: float = 0.0) -> list[ScoredPhrase]:
    """Best score over the views; all candidates, best first. ``views`` lists the views on
    which a phrase reaches the threshold."""
    best: dict[str, ScoredPhrase] = {}
    for view, scores in enumerate(per_view):
        for phrase, (score, studies) in scores.items():
            old = best.get(phrase)
            here = (view,) if score >= threshold else ()
            if old is None:
                best[phrase] = ScoredPhrase(phrase, score, here, studies)
                continue
            views = old.views + here
            merged = tuple(dict.fromkeys(old.studies + studies))
            best[phrase] = ScoredPhrase(phrase, max(old.score, score), views, merged)
    return sorted(best.values(), key=lambda p: (-p.score, p.text))


def resolve_conflicts(phrases: list[ScoredPhrase]) -> list[ScoredPhrase]:
    """Keep phrases in order, dropping any that contradicts one kept before it, or that only
    repeats what kept ones say ("cardiomegaly" after "moderate cardiomegaly")."""
    kept: list[ScoredPhrase] = []
    said: dict[str, str] = {}
    stated: set = set()
    for phrase in phrases:
        statuses = phrase_statuses(phrase.text)
        if any(_conflicts(observation, status, said) for observation, status in statuses.items()):
            continue
        key = finding_key(phrase.text)
        if covered(key, frozenset(stated)):
            continue
        kept.append(phrase)
        stated |= key
        for observation, status in statuses.items():
            said.setdefault(observation, status)
    return kept


def phrase_statuses(text: str) -> dict[str, str]:
    """observation → status that a phrase states (implied normals included)."""
    return statements(text)


def _conflicts(observation: str, status: str, said: dict[str, str]) -> bool:
    positive = status in ("present", "uncertain")
    old = said.get(observation)
    if old is not None and (old == "absent") == positive:
        return True
    if positive:
        # a present child contradicts an absent parent ("no opacity" vs "pneumonia")
        return any(said.get(parent) == "absent" for parent in ancestors(observation))
    # an absent parent contradicts a present child already kept
    return any(observation in ancestors(child) and s in ("present", "uncertain")
               for child, s in said.items())


def select_phrases(neighbours_per_view: list[list[Neighbour]], *,
                   threshold: float = DEFAULT_THRESHOLD,
                   scale: float = SIMILARITY_SCALE) -> PhraseRetrieval:
    """The selected key phrases for a study whose views found these neighbours."""
    candidates = pool_views([view_scores(n, scale) for n in neighbours_per_view], threshold)
    selected = resolve_conflicts([p for p in candidates if p.score >= threshold])
    return PhraseRetrieval(selected, candidates, neighbours_per_view, threshold)


def retrieve_phrases(memory, vectors: np.ndarray, *, k: int = DEFAULT_NEIGHBOURS,
                     threshold: float = DEFAULT_THRESHOLD, exclude_studies=(),
                     scale: float = SIMILARITY_SCALE) -> PhraseRetrieval:
    """Search the image memory with each view's vector and select phrases (kNN form)."""
    neighbours = memory.search(vectors, k, exclude_studies=exclude_studies)
    return select_phrases(neighbours, threshold=threshold, scale=scale)
