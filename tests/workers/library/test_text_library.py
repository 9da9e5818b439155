"""The text library: report vectors from distinct sentences, neighbours without the report's
own id, and an index that grows without re-embedding what it holds."""
from collections import Counter
from dataclasses import replace

import numpy as np

from tests.workers.library.fakes import HashEmbedder, make_library
from workers.library.stats import tokens_of
from workers.library.text import LibraryEntry, Neighbour, TextLibrary
from workers.library.vectors import SentenceVectors, report_sentences, report_vectors
from workers.retrieval.index import VectorIndex


def test_each_distinct_sentence_is_embedded_once():
    embedder = HashEmbedder()
    sentences = SentenceVectors(embedder)
    texts = ["FINDINGS: Lungs clear. No effusion.", "FINDINGS: Lungs clear. Small effusion."]
    vectors = report_vectors(texts, sentences)
    assert vectors.shape == (2, embedder.dim)
    assert sorted(embedder.embedded) == ["Lungs clear.", "No effusion.", "Small effusion."]
    report_vectors(texts, sentences)
    assert len(embedder.calls) == 1  # everything came from the cache
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)


def test_neighbours_never_include_a_report_with_the_same_external_id():
    library = make_library()
    query = library.entries[0].text  # identical to ref-1 and ref-2
    found = library.neighbours(query, 3, exclude_external_id="ref-1")
    assert "ref-1" not in [n.external_id for n in found]
    assert found[0].external_id == "ref-2" and found[0].similarity > 0.99
    assert library.excluded_position("ref-1") == 0
    assert library.neighbours(query, 3)[0].external_id in ("ref-1", "ref-2")


def test_the_index_grows_incrementally_and_round_trips(tmp_path):
    embedder = HashEmbedder()
    sentences = SentenceVectors(embedder)
    first = [LibraryEntry(1, "a", "FINDINGS: No pneumothorax."),
             LibraryEntry(2, "b", "FINDINGS: Mild cardiomegaly.")]
    library = TextLibrary.build(first, sentences)
    path = tmp_path / "text.faiss"
    library.index.save(path)
    index = VectorIndex.open(path, embedder.dim)
    embedded_before = len(embedder.embedded)
    new = LibraryEntry(3, "c", "FINDINGS: Small left pleural effusion. No pneumothorax.")
    index.add([new.ref_id], report_vectors([new.text], sentences))
    index.save(path)
    # only the new sentence reached the model
    assert embedder.embedded[embedded_before:] == ["Small left pleural effusion."]
    reopened = TextLibrary(first + [new], VectorIndex.open(path, embedder.dim), sentences)
    assert sorted(reopened.index.ids().tolist()) == [1, 2, 3]
    assert reopened.neighbours("FINDINGS: Small left pleural effusion.", 1)[0].external_id == "c"


def test_a_neighbours_sentence_counts_are_those_of_its_text():
    library = make_library()
    query = library.entries[0].text
    for n in library.neighbours(query, len(library)):
        counted = Counter(tokens_of(s) for s in report_sentences(n.text))
        counted.pop((), None)  # a sentence of no words is no wording
        assert library.sentence_counts(n) == counted
    stranger = Neighbour(10_000, "elsewhere", 1.0, "FINDINGS: No effusion.")
    assert library.sentence_counts(stranger) is None
    # a report of another library under a known id is not read from this one's counts
    assert library.sentence_counts(replace(stranger, ref_id=library.entries[0].ref_id)) is None
