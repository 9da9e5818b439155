"""Nearest-neighbour search over embeddings with FAISS, persisted and grown incrementally.

Vectors are L2-normalised, so inner product is cosine similarity. Small libraries use an
exact index; past ``exact_below`` vectors the index becomes HNSW (graph search, approximate,
fast), rebuilt once from the stored vectors. Each vector carries the integer id of the row it
came from (a reference report or image), so every result is traceable to its source.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np

from workers.atomic import replacing


@dataclass(frozen=True)
class HnswParams:
    m: int = 32
    ef_construction: int = 200
    ef_search: int = 128


@dataclass(frozen=True)
class Hit:
    id: int
    score: float  # cosine similarity


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.ascontiguousarray(np.atleast_2d(vectors), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class VectorIndex:
    def __init__(self, dim: int, *, hnsw: HnswParams | None = None, exact_below: int = 20_000,
                 index: faiss.Index | None = None):
        self.dim = dim
        self.hnsw = hnsw or HnswParams()
        self.exact_below = exact_below
        self._index = index if index is not None else self._exact()
        self._apply_search_params()

    # --- building ---------------------------------------------------------------------------

    def _exact(self) -> faiss.Index:
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))

    def _graph(self) -> faiss.Index:
        graph = faiss.IndexHNSWFlat(self.dim, self.hnsw.m, faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = self.hnsw.ef_construction
        return faiss.IndexIDMap2(graph)

    @property
    def kind(self) -> str:
        return (
            "hnsw"
            if isinstance(faiss.downcast_index(self._index.index), faiss.IndexHNSW)
            else "exact"
        )

    def __len__(self) -> int:
        return self._index.ntotal

    def ids(self) -> np.ndarray:
        return faiss.vector_to_array(self._index.id_map).astype(np.int64)

    def add(self, ids, vectors: np.ndarray) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        vectors = normalise(vectors)
        if vectors.shape != (len(ids), self.dim):
            raise ValueError(
                f"expected {len(ids)} vectors of dimension {self.dim}, got {vectors.shape}"
            )
        if len(ids) and np.isin(ids, self.ids()).any():
            raise ValueError("some ids are already in the index")
        if self.kind == "exact" and len(self) + len(ids) >= self.exact_below:
            self._become_graph()
        self._index.add_with_ids(vectors, ids)

    def _become_graph(self) -> None:
        existing_ids = self.ids()
        existing = (
            self._index.index.reconstruct_n(0, len(self))
            if len(self)
            else np.zeros((0, self.dim), np.float32)
        )
        self._index = self._graph()
        self._apply_search_params()
        if len(existing_ids):
            self._index.add_with_ids(existing, existing_ids)

    def rebuild(self) -> None:
        """Rebuild from the stored vectors (e.g. after changing the HNSW parameters)."""
        ids = self.ids()
        vectors = (
            self._index.index.reconstruct_n(0, len(self))
            if len(self)
            else np.zeros((0, self.dim), np.float32)
        )
        self._index = self._graph() if len(ids) >= self.exact_below else self._exact()
        self._apply_search_params()
        if len(ids):
            self._index.add_with_ids(vectors, ids)

    def _apply_search_params(self) -> None:
        inner = faiss.downcast_index(self._index.index)
        if isinstance(inner, faiss.IndexHNSW):
            inner.hnsw.efSearch = self.hnsw.ef_search

    # --- searching --------------------------------------------------------------------------

    def search(
        self, queries: np.ndarray, k: int, exclude: set[int] | None = None
    ) -> list[list[Hit]]:
        """The ``k`` nearest neighbours of each query, best first, never an excluded id."""
        if len(self) == 0 or k <= 0:
            return [[] for _ in range(len(np.atleast_2d(queries)))]
        exclude = exclude or set()
        wanted = min(len(self), k + len(exclude))
        scores, ids = self._index.search(normalise(queries), wanted)
        results = []
        for row_scores, row_ids in zip(scores, ids):
            hits = [
                Hit(int(i), float(s))
                for s, i in zip(row_scores, row_ids)
                if i != -1 and int(i) not in exclude
            ]
            results.append(hits[:k])
        return results

    # --- persistence ------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write the index to ``path`` through a temporary file, so readers never see half of it."""
        with replacing(path) as partial:
            faiss.write_index(self._index, str(partial))

    @classmethod
    def load(
        cls, path: str | Path, *, hnsw: HnswParams | None = None, exact_below: int = 20_000
    ) -> VectorIndex:
        index = faiss.read_index(str(path))
        return cls(index.d, hnsw=hnsw, exact_below=exact_below, index=index)

    @classmethod
    def open(cls, path: str | Path, dim: int, **kwargs) -> VectorIndex:
        """Load the index at ``path`` if it exists, else start an empty one."""
        path = Path(path)
        if path.exists():
            index = cls.load(path, **kwargs)
            if index.dim != dim:
                raise ValueError(f"index at {path} has dimension {index.dim}, expected {dim}")
            return index
        return cls(dim, **kwargs)
