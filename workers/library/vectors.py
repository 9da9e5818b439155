"""Report vectors from the text_embedder role.

A report's vector is the normalised mean of the vectors of its image-section sentences
(FINDINGS, IMPRESSION, unlabelled text). Radiology reports are written from templates, so most
sentences recur across reports: embedding each distinct sentence once, and reusing it, makes a
library of thousands of reports (and each new report to audit) cheap to embed, where embedding
whole reports would cost the full transformer pass for every report. The same function serves
the persisted library index and the reports being audited, so their vectors are comparable.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from workers.backends.roles import TextEmbedder
from workers.nlp import parse_report
from workers.nlp.findings import IMAGE_SECTIONS

EMBED_CHUNK = 1024


def report_sentences(text: str) -> list[str]:
    """The sentences that describe the images (the whole text when no sentence does)."""

    parsed = parse_report(text)
    sentences = [s.text for s in parsed.sentences if s.section in IMAGE_SECTIONS]
    if not sentences:
        sentences = [s.text for s in parsed.sentences] or [text.strip() or "(empty)"]
    return sentences


def vector_file_stem(embedder: TextEmbedder) -> str:
    """What a file of kept vectors is named after: the embedder's name, size and precision."""
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in embedder.name)
    return f"{name}-{embedder.dim}-{embedder.precision}"


class SentenceVectors:
    """Sentence vectors of one embedder, each distinct text embedded once (kept in memory)."""

    def __init__(self, embedder: TextEmbedder):
        self.embedder = embedder
        self.dim = int(embedder.dim)
        self._vectors: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._vectors)

    def __contains__(self, text: str) -> bool:
        return text in self._vectors

    def embed(self, texts: Iterable[str],
              progress: Callable[[int, int], None] | None = None) -> np.ndarray:
        """(n, dim) vectors of ``texts``; only texts not seen before reach the model."""
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        for start in range(0, len(missing), EMBED_CHUNK):
            chunk = missing[start:start + EMBED_CHUNK]
            for text, vector in zip(chunk, self.embedder.embed(chunk)):
                self._vectors[text] = np.asarray(vector, dtype=np.float32)
            if progress:
                progress(min(start + EMBED_CHUNK, len(missing)), len(missing))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def texts(self) -> list[str]:
        return list(self._vectors)

    # A run that audits against a reference file embeds the same library every time; a
    # cache file (library sentences only, never the audited reports) spares that.
    def save(self, path: str | Path, texts: Iterable[str] | None = None) -> None:
        """Keep the vectors of ``texts`` (all held texts when None) in ``path``."""
        texts = self.texts() if texts is None else texts
        texts = [t for t in dict.fromkeys(texts) if t in self._vectors]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".partial.npz")
        np.savez(tmp, texts=np.array(texts, dtype=object),
                 vectors=np.stack([self._vectors[t] for t in texts]) if texts
                 else np.zeros((0, self.dim), np.float32))
        tmp.replace(path)

    def load(self, path: str | Path) -> int:
        """Take the vectors saved at ``path`` (if it exists and has this dimension)."""
        path = Path(path)
        if not path.is_file():
            return 0
        try:
            with np.load(path, allow_pickle=True) as data:
                texts, vectors = list(data["texts"]), data["vectors"]
        except (OSError, ValueError, KeyError):
            return 0
        if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(texts) != len(vectors):
            return 0
        for text, vector in zip(texts, vectors):
            self._vectors.setdefault(str(text), vector.astype(np.float32))
        return len(texts)


def mean_vector(vectors: np.ndarray) -> np.ndarray:
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


def report_vectors(texts: list[str], sentences: SentenceVectors,
                   progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """(len(texts), dim) report vectors: the normalised mean of each report's sentence
    vectors. ``progress(done, total)`` counts the distinct sentences embedded."""
    per_report = [report_sentences(text) for text in texts]
    sentences.embed([s for group in per_report for s in group], progress)
    if not texts:
        return np.zeros((0, sentences.dim), dtype=np.float32)
    return np.stack([mean_vector(sentences.embed(group)) for group in per_report])
