"""Aligning two detectors' detections (Lasko et al.): the Hungarian algorithm on the cosine
similarity of their explanations, within a sentence only."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A cost no pair on different sentences can beat (linear_sum_assignment needs finite costs).
_FORBIDDEN = 1e6


@dataclass(frozen=True)
class Alignment:
    pairs: list[tuple[int, int, float]]  # (index in a, index in b, cosine similarity)
    only_a: list[int]
    only_b: list[int]


def cosine_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if not len(a) or not len(b):
        return np.zeros((len(a), len(b)))
    a = a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)
    b = b / np.maximum(np.linalg.norm(b, axis=1, keepdims=True), 1e-12)
    return a @ b.T


def align(sentences_a: list[int], vectors_a: np.ndarray, sentences_b: list[int],
          vectors_b: np.ndarray, threshold: float) -> Alignment:
    """The one-to-one pairing of a's and b's detections that maximises the total similarity,
    keeping only pairs on the same sentence with similarity >= ``threshold``."""
    # scipy.optimize takes 0.3-0.7 s to import: every Django process imports this package (the
    # combination's settings model reads its defaults), few of them ever align
    from scipy.optimize import linear_sum_assignment  # noqa: PLC0415 - defer scipy

    n, m = len(sentences_a), len(sentences_b)
    if not n or not m:
        return Alignment([], list(range(n)), list(range(m)))
    similarity = cosine_matrix(vectors_a, vectors_b)
    same = np.equal.outer(np.asarray(sentences_a), np.asarray(sentences_b))
    cost = np.where(same, -similarity, _FORBIDDEN)
    rows, cols = linear_sum_assignment(cost)
    pairs = [(int(i), int(j), float(similarity[i, j])) for i, j in zip(rows, cols)
             if same[i, j] and similarity[i, j] >= threshold]
    paired_a = {i for i, _, _ in pairs}
    paired_b = {j for _, j, _ in pairs}
    return Alignment(pairs, [i for i in range(n) if i not in paired_a],
                     [j for j in range(m) if j not in paired_b])
