"""The fusion arithmetic of the system combination on hand-computed cases."""
import numpy as np
import pytest

from workers.combine import CombinationConfig, DetectorOutput, combine, fold
from workers.types import Detection, Harm

AXES = {"effusion": [1, 0, 0], "effusion too": [0.9, 0.4359, 0], "cirrhosis": [0, 1, 0],
        "prior": [0, 0, 1], "other": [0.6, 0.8, 0]}


def embed(texts):
    return np.array([AXES[t] for t in texts], dtype=np.float32)


def det(sentence, confidence, explanation, detector="x", harm=Harm.LOW, suggestion=None):
    return Detection(sentence, 0, 10, detector, explanation, harm, confidence,
                     suggestion=suggestion)


def config(**weights):
    return CombinationConfig(weights=weights, order=tuple(weights), similarity_threshold=0.8,
                             flag_threshold=0.3, rules=())


def by_sentence(items):
    return {(c.sentence_index, tuple(m[0] for m in c.members)): round(c.confidence, 6)
            for c in items}


def test_two_detectors_of_equal_weight():
    outputs = [DetectorOutput("a", [det(0, 0.8, "effusion"), det(2, 0.4, "cirrhosis")]),
               DetectorOutput("b", [det(0, 0.6, "effusion too"), det(1, 0.9, "prior")])]
    items = fold(outputs, config(a=1, b=1), embed, [0, 1, 2])
    assert by_sentence(items) == {
        (0, ("a", "b")): 0.5 * 0.8 + 0.5 * 0.6,   # aligned: w·a + (1 − w)·b, w = 1/2
        (1, ("b",)): 0.5 * 0.9,                  # b alone: (1 − w)·b
        (2, ("a",)): 0.5 * 0.4,                  # a alone: w·a
    }


def test_weights_set_w():
    outputs = [DetectorOutput("a", [det(0, 0.8, "effusion")]),
               DetectorOutput("b", [det(0, 0.6, "effusion too")])]
    [item] = fold(outputs, config(a=3, b=1), embed, [0])
    assert item.confidence == pytest.approx(0.75 * 0.8 + 0.25 * 0.6)  # w = 3 / (3 + 1)


def test_three_detectors_fold_one_at_a_time():
    outputs = [DetectorOutput("a", [det(0, 0.9, "effusion")]),
               DetectorOutput("b", [det(0, 0.6, "effusion too")]),
               DetectorOutput("c", [])]
    [item] = fold(outputs, config(a=1, b=1, c=1), embed, [0])
    # after b: 0.5·0.9 + 0.5·0.6 = 0.75; c says nothing on sentence 0: w = 2/3 -> 0.5
    assert item.confidence == pytest.approx(0.75 * 2 / 3)


def test_a_detector_is_no_vote_outside_its_scope():
    outputs = [DetectorOutput("a", [det(0, 0.9, "effusion"), det(1, 0.6, "cirrhosis")]),
               DetectorOutput("c", [det(1, 0.8, "prior")], scope=frozenset({1}))]
    items = fold(outputs, config(a=1, c=1), embed, [0, 1])
    assert by_sentence(items) == {
        (0, ("a",)): 0.9,          # c never looked at sentence 0: nothing discounted
        (1, ("a",)): 0.5 * 0.6,    # c looked and disagreed (its explanation differs)
        (1, ("c",)): 0.5 * 0.8,
    }


def test_a_single_purpose_detector_discounts_nothing():
    # The judge finds a side conflict where the comparative detector finds comparison wording:
    # the comparative detector's silence about sides is no vote against the judge.
    outputs = [DetectorOutput("judge", [det(1, 0.6, "cirrhosis")]),
               DetectorOutput("comparative", [det(1, 0.8, "prior")], single_purpose=True)]
    items = fold(outputs, config(judge=1, comparative=1), embed, [0, 1])
    assert by_sentence(items) == {
        (1, ("judge",)): 0.6,                 # kept whole
        (1, ("comparative",)): 0.5 * 0.8,     # a claim only one of two detectors makes
    }


def test_dissimilar_explanations_are_not_merged():
    outputs = [DetectorOutput("a", [det(0, 0.8, "effusion")]),
               DetectorOutput("b", [det(0, 0.8, "other")])]  # cosine 0.6 < 0.8
    items = fold(outputs, config(a=1, b=1), embed, [0])
    assert sorted(round(c.confidence, 6) for c in items) == [0.4, 0.4]


def test_identical_explanations_merge_without_embedding():
    def refuse(texts):
        raise AssertionError("no embedding needed")
    outputs = [DetectorOutput("a", [det(0, 0.8, "same words")]),
               DetectorOutput("b", [det(0, 0.4, "same words")])]
    [item] = fold(outputs, config(a=1, b=1), refuse, [0])
    assert item.confidence == pytest.approx(0.6) and item.similarities == [1.0]


def test_combine_flags_at_the_threshold_and_keeps_the_members():
    outputs = [DetectorOutput("a", [det(0, 0.8, "effusion", harm=Harm.MEDIUM,
                                        suggestion="No effusion.")]),
               DetectorOutput("b", [det(0, 0.6, "effusion too", harm=Harm.HIGH),
                                    det(1, 0.5, "prior")])]
    results = combine(outputs, config(a=1, b=1), embed, {0: "s0", 1: "s1"})
    first, second = sorted(results, key=lambda r: r.detection.sentence_index)
    assert first.flagged and first.members == [("a", 0), ("b", 0)]
    assert first.detection.detector == "combined" and first.detection.confidence == 0.7
    assert first.detection.harm == Harm.HIGH            # the most harmful member
    assert first.detection.explanation == "effusion"    # the most confident member
    assert first.detection.suggestion == "No effusion."
    assert not second.flagged and second.detection.confidence == 0.25  # below 0.3
