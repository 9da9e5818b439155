"""``TextLibrary``: the reference reports a detector consults while auditing one report.

It holds the library's reports (``LibraryEntry``: the row id, the id in its source, the text),
a ``VectorIndex`` of their report vectors (workers.library.vectors) and the counts of
``LibraryStats``. ``neighbours(text, k, exclude_external_id=...)`` is the external retrieval of
the three-stage correction: the k most similar reports by text embedding, never one with the
audited report's own external id.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from workers.library.stats import LibraryStats
from workers.library.vectors import SentenceVectors, report_sentences, report_vectors
from workers.retrieval.index import VectorIndex

EXCERPT_CHARS = 240


@dataclass(frozen=True)
class LibraryEntry:
    """One library report: ``ref_id`` is the id its vector carries in the index (the
    ReferenceStudy primary key, or the line number of a reference file)."""

    ref_id: int
    external_id: str
    text: str


@dataclass(frozen=True)
class Neighbour:
    ref_id: int
    external_id: str
    similarity: float
    text: str

    def as_evidence(self) -> dict:
        """The ``neighbours`` item of docs/detections.md."""
        excerpt = " ".join(self.text.split())
        if len(excerpt) > EXCERPT_CHARS:
            excerpt = excerpt[:EXCERPT_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
        return {"reference_id": self.ref_id, "external_id": self.external_id,
                "similarity": round(self.similarity, 3), "excerpt": excerpt}


class TextLibrary:
    def __init__(self, entries: list[LibraryEntry], index: VectorIndex,
                 sentence_vectors: SentenceVectors):
        self.entries = list(entries)
        self.index = index
        self.sentence_vectors = sentence_vectors
        self._position = {entry.ref_id: i for i, entry in enumerate(self.entries)}
        self._by_external: dict[str, list[int]] = {}
        for i, entry in enumerate(self.entries):
            self._by_external.setdefault(entry.external_id, []).append(i)
        self._stats: LibraryStats | None = None

    def __len__(self) -> int:
        return len(self.entries)

    @classmethod
    def build(cls, entries: Iterable[LibraryEntry], sentence_vectors: SentenceVectors,
              progress: Callable[[int, int], None] | None = None) -> TextLibrary:
        """A library held in memory: every report embedded now (distinct sentences once)."""
        entries = list(entries)
        vectors = report_vectors([e.text for e in entries], sentence_vectors, progress)
        index = VectorIndex(sentence_vectors.dim)
        if entries:
            index.add([e.ref_id for e in entries], vectors)
        return cls(entries, index, sentence_vectors)

    @property
    def stats(self) -> LibraryStats:
        if self._stats is None:
            self._stats = LibraryStats([report_sentences(e.text) for e in self.entries])
        return self._stats

    @stats.setter
    def stats(self, stats: LibraryStats) -> None:
        """Counts made before over the same texts (workers.library.kept)."""
        if stats.n_reports != len(self.entries):
            raise ValueError(f"counts of {stats.n_reports} reports for a library of "
                             f"{len(self.entries)}")
        self._stats = stats

    def sentence_counts(self, neighbour: Neighbour) -> Counter | None:
        """How often a library report retrieved as ``neighbour`` writes each of its
        image-section sentences (as words), from the library's counts; None when it is no
        report of this library."""
        position = self._position.get(neighbour.ref_id)
        if position is None or self.entries[position].text != neighbour.text:
            return None
        return self.stats.sentences_of(position)

    def positions_of(self, external_id: str | None) -> list[int]:
        """Positions of the library reports with this external id (none for None)."""
        return list(self._by_external.get(external_id, ())) if external_id else []

    def excluded_position(self, external_id: str | None) -> int | None:
        """The position the counts must leave out for a report with this external id."""
        positions = self.positions_of(external_id)
        return positions[0] if positions else None

    def neighbours(self, text: str, k: int, *, exclude_external_id: str | None = None
                   ) -> list[Neighbour]:
        """The ``k`` most similar library reports to ``text``, best first."""
        if k <= 0 or not self.entries:
            return []
        vector = report_vectors([text], self.sentence_vectors)
        exclude = {self.entries[i].ref_id for i in self.positions_of(exclude_external_id)}
        [hits] = self.index.search(vector, k, exclude=exclude)
        found = []
        for hit in hits:
            position = self._position.get(hit.id)
            if position is None:  # a vector whose row has gone: skip it, never guess
                continue
            entry = self.entries[position]
            found.append(Neighbour(entry.ref_id, entry.external_id, hit.score, entry.text))
        return found

    def neighbours_many(self, texts: list[str], k: int,
                        exclude_external_ids: list[str | None] | None = None
                        ) -> list[list[Neighbour]]:
        """``neighbours`` for many reports with one batched search (one search per report
        costs far more on a busy CPU: FAISS starts its threads for each)."""
        if k <= 0 or not self.entries or not texts:
            return [[] for _ in texts]
        exclude_external_ids = exclude_external_ids or [None] * len(texts)
        excluded = [{self.entries[i].ref_id for i in self.positions_of(e)}
                    for e in exclude_external_ids]
        vectors = report_vectors(texts, self.sentence_vectors)
        extra = max((len(e) for e in excluded), default=0)
        rows = self.index.search(vectors, k + extra)
        found = []
        for hits, skip in zip(rows, excluded):
            chosen = []
            for hit in hits:
                position = self._position.get(hit.id)
                if hit.id in skip or position is None:
                    continue
                entry = self.entries[position]
                chosen.append(Neighbour(entry.ref_id, entry.external_id, hit.score, entry.text))
                if len(chosen) == k:
                    break
            found.append(chosen)
        return found
