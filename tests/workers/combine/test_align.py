"""Alignment by the Hungarian algorithm on explanation similarity, within a sentence."""
import numpy as np

from workers.combine.align import align, cosine_matrix


def vectors_for(similarity: np.ndarray):
    """a = the unit axes; b_j has cosine similarity[i, j] with a_i (and is a unit vector)."""
    n, m = similarity.shape
    dim = n + m
    a = np.eye(n, dim)
    b = np.zeros((m, dim))
    for j in range(m):
        b[j, :n] = similarity[:, j]
        b[j, n + j] = np.sqrt(1 - np.sum(similarity[:, j] ** 2))
    return a, b


def test_the_assignment_maximises_the_total_similarity_not_the_first_best_pair():
    similarity = np.array([[0.70, 0.60],
                           [0.65, 0.10]])
    a, b = vectors_for(similarity)
    assert np.allclose(cosine_matrix(a, b), similarity)
    result = align([0, 0], a, [0, 0], b, threshold=0.5)
    # greedy would take (0, 0) = 0.70 and leave (1, 1) = 0.10; the optimum is 0.60 + 0.65
    assert sorted((i, j) for i, j, _ in result.pairs) == [(0, 1), (1, 0)]
    assert [round(s, 2) for _, _, s in sorted(result.pairs)] == [0.6, 0.65]
    assert result.only_a == [] and result.only_b == []


def test_pairs_below_the_threshold_stay_apart():
    a, b = vectors_for(np.array([[0.4]]))
    result = align([0], a, [0], b, threshold=0.5)
    assert result.pairs == [] and result.only_a == [0] and result.only_b == [0]


def test_detections_on_different_sentences_are_never_aligned():
    a = np.array([[1.0, 0.0]])
    result = align([0], a, [1], a.copy(), threshold=0.0)
    assert result.pairs == [] and result.only_a == [0] and result.only_b == [0]


def test_one_side_empty():
    result = align([], np.zeros((0, 2)), [3], np.array([[1.0, 0.0]]), threshold=0.5)
    assert result.pairs == [] and result.only_a == [] and result.only_b == [0]
