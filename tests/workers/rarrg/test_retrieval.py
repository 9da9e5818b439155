"""kNN key-phrase retrieval: the selection score and threshold, multi-view pooling, conflicts."""
from __future__ import annotations

import pytest

from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory import (
    ImageMemory,
    MemoryImage,
    MemoryStudy,
    Neighbour,
    load_pixels,
    memory_dir,
)
from workers.rarrg.retrieval import (
    ScoredPhrase,
    resolve_conflicts,
    retrieve_phrases,
    select_phrases,
    view_scores,
)


def neighbour(study_id: int, similarity: float, *phrases: str) -> Neighbour:
    study = MemoryStudy(study_id, f"s{study_id}", "test", ". ".join(phrases), tuple(phrases))
    return Neighbour(MemoryImage(study_id * 10, study_id), study, similarity)


def test_the_selection_score_is_the_similarity_weighted_share_of_neighbours():
    hits = [neighbour(1, 0.95, "no pneumothorax", "small left pleural effusion"),
            neighbour(2, 0.95, "no pneumothorax"),
            neighbour(3, 0.95, "no pneumothorax", "mild cardiomegaly")]
    scores = view_scores(hits)
    assert scores["no pneumothorax"][0] == pytest.approx(1.0)
    assert scores["small left pleural effusion"][0] == pytest.approx(1 / 3)
    assert scores["no pneumothorax"][1] == (1, 2, 3)
    # A closer neighbour weighs more: the same phrase from the nearest one scores higher.
    closer = view_scores([neighbour(1, 0.99, "a"), neighbour(2, 0.90, "b"),
                          neighbour(3, 0.90, "b")])
    assert closer["a"][0] > 0.5 > closer["b"][0]


def test_only_phrases_at_or_above_the_threshold_are_selected():
    hits = [neighbour(i, 0.9, "no pneumothorax", *(["mild cardiomegaly"] if i < 2 else []))
            for i in range(5)]  # cardiomegaly: 2 of 5 = 0.4
    assert select_phrases([hits], threshold=0.4).texts == ["no pneumothorax", "mild cardiomegaly"]
    assert select_phrases([hits], threshold=0.41).texts == ["no pneumothorax"]


def test_views_are_pooled_so_a_finding_seen_on_one_view_comes_through():
    frontal = [neighbour(1, 0.9, "normal heart size", "no pneumothorax"),
               neighbour(2, 0.9, "normal heart size")]
    lateral = [neighbour(3, 0.9, "small left pleural effusion", "normal heart size"),
               neighbour(4, 0.9, "small left pleural effusion")]
    pooled = select_phrases([frontal, lateral])
    by_text = {p.text: p for p in pooled.selected}
    assert set(by_text) == {"normal heart size", "no pneumothorax", "small left pleural effusion"}
    assert by_text["small left pleural effusion"].views == (1,)
    heart = by_text["normal heart size"]
    assert heart.views == (0, 1) and heart.score == 1.0
    assert set(by_text["normal heart size"].studies) == {1, 2, 3}
    assert "small left pleural effusion" not in select_phrases([frontal]).texts


def test_contradicting_or_repeated_phrases_keep_the_higher_score():
    phrases = [ScoredPhrase("clear lungs", 0.8),
               ScoredPhrase("right lower lobe consolidation", 0.5),
               ScoredPhrase("no pleural effusion", 0.7),
               ScoredPhrase("small left pleural effusion", 0.45),
               ScoredPhrase("no opacity", 0.44), ScoredPhrase("mild cardiomegaly", 0.42)]
    kept = [p.text for p in resolve_conflicts(phrases)]
    # "no opacity" only repeats what "clear lungs" says.
    assert kept == ["clear lungs", "no pleural effusion", "mild cardiomegaly"]
    # A present child against an absent parent, in either order.
    assert [p.text for p in resolve_conflicts([ScoredPhrase("pneumonia", 0.9),
                                               ScoredPhrase("no opacity", 0.5)])] == ["pneumonia"]


def test_a_study_like_a_reference_gets_that_reference_s_phrases(reference_library):
    studies, index_dir = reference_library
    memory = ImageMemory.open(memory_dir(index_dir))
    vector = AppearanceDescriptorEncoder().encode([load_pixels(studies[1].images[0].path)])
    retrieval = retrieve_phrases(memory, vector, k=10)
    assert retrieval.texts[:1] == ["small left pleural effusion"] or \
        "small left pleural effusion" in retrieval.texts
    assert all(p.score >= 0.4 for p in retrieval.selected)
    assert len(retrieval.neighbours[0]) == 10 and retrieval.neighbours[0][0].study.id == 2
