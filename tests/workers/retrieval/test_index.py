import numpy as np
import pytest

from workers.retrieval.index import HnswParams, VectorIndex


def random_vectors(n, dim=32, seed=0):
    return np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)


def test_exact_search_finds_each_vector_itself_first():
    vectors = random_vectors(50)
    index = VectorIndex(32)
    index.add(np.arange(100, 150), vectors)
    hits = index.search(vectors[:5], k=3)
    assert [row[0].id for row in hits] == [100, 101, 102, 103, 104]
    assert all(row[0].score == pytest.approx(1.0, abs=1e-5) for row in hits)
    assert all(row[0].score >= row[1].score >= row[2].score for row in hits)


def test_excluded_ids_are_never_returned():
    vectors = random_vectors(20)
    index = VectorIndex(32)
    index.add(np.arange(20), vectors)
    hits = index.search(vectors[:1], k=5, exclude={0, 1, 2})
    assert len(hits[0]) == 5
    assert not {0, 1, 2} & {hit.id for hit in hits[0]}


def test_index_grows_into_hnsw_past_the_exact_limit_and_keeps_its_vectors():
    vectors = random_vectors(300)
    index = VectorIndex(
        32, exact_below=200, hnsw=HnswParams(m=16, ef_construction=80, ef_search=64)
    )
    index.add(np.arange(150), vectors[:150])
    assert index.kind == "exact"
    index.add(np.arange(150, 300), vectors[150:])
    assert index.kind == "hnsw" and len(index) == 300
    hits = index.search(vectors[[3, 250]], k=1)
    assert [row[0].id for row in hits] == [3, 250]


def test_saved_index_reloads_with_the_same_answers(tmp_path):
    vectors = random_vectors(40)
    index = VectorIndex(32)
    index.add(np.arange(40), vectors)
    index.save(tmp_path / "text.faiss")
    again = VectorIndex.open(tmp_path / "text.faiss", 32)
    assert len(again) == 40
    assert again.search(vectors[7], k=4) == index.search(vectors[7], k=4)
    assert not list(tmp_path.glob(".partial-*"))


def test_adding_an_id_twice_or_a_wrong_dimension_is_refused():
    index = VectorIndex(32)
    index.add([1], random_vectors(1))
    with pytest.raises(ValueError, match="already"):
        index.add([1], random_vectors(1))
    with pytest.raises(ValueError, match="dimension"):
        index.add([2], random_vectors(1, dim=8))


def test_opening_an_index_of_another_dimension_is_refused(tmp_path):
    VectorIndex(8).save(tmp_path / "x.faiss")
    with pytest.raises(ValueError, match="dimension 8"):
        VectorIndex.open(tmp_path / "x.faiss", 32)


def test_empty_index_answers_with_no_hits():
    assert VectorIndex(32).search(random_vectors(2), k=3) == [[], []]
