"""The combination's explanations embedded in one call, with the fold's choices unchanged."""
import numpy as np

from workers.combine import CombinationConfig, DetectorOutput, combine, compared_explanations, fold
from workers.combine.prefetch import prefetched
from workers.types import Detection, Harm

AXES = {"effusion": [1, 0, 0], "effusion too": [0.9, 0.4359, 0], "cirrhosis": [0, 1, 0],
        "cirrhosis again": [0.1, 0.995, 0], "prior": [0, 0, 1], "prior again": [0, 0.2, 0.98],
        "other": [0.6, 0.8, 0]}


class Counting:
    def __init__(self):
        self.calls = []

    def __call__(self, texts):
        texts = list(texts)
        self.calls.append(texts)
        return np.array([AXES[t] for t in texts], dtype=np.float32)


def det(sentence, confidence, explanation):
    return Detection(sentence, 0, 10, "x", explanation, Harm.LOW, confidence)


CONFIG = CombinationConfig(weights={"a": 1, "b": 1, "c": 1}, order=("a", "b", "c"),
                           similarity_threshold=0.8, flag_threshold=0.3, rules=())
# two sentences where each side has two detections: the fold must compare embeddings on both,
# and c meets a merged (a, b) detection on sentence 0
OUTPUTS = [
    DetectorOutput("a", [det(0, 0.8, "effusion"), det(0, 0.5, "cirrhosis"),
                         det(1, 0.7, "prior"), det(1, 0.4, "other")]),
    DetectorOutput("b", [det(0, 0.6, "effusion too"), det(0, 0.3, "prior again"),
                         det(1, 0.9, "prior again"), det(1, 0.2, "cirrhosis again")]),
    DetectorOutput("c", [det(0, 0.7, "effusion"), det(0, 0.6, "cirrhosis again")]),
]


def summary(results):
    return sorted((r.detection.sentence_index, tuple(r.members), r.detection.confidence,
                   tuple(r.detection.evidence["similarities"])) for r in results)


def test_combine_asks_for_the_compared_explanations_once_and_chooses_the_same_pairs():
    plain = Counting()
    expected = sorted((c.sentence_index, tuple(c.members), round(min(1.0, c.confidence), 4),
                       tuple(round(s, 3) for s in c.similarities))
                      for c in fold(OUTPUTS, CONFIG, plain, [0, 1]))
    assert len(plain.calls) > 1  # the fold alone asks sentence by sentence
    counting = Counting()
    results = combine(OUTPUTS, CONFIG, counting, {0: "s0", 1: "s1"})
    assert len(counting.calls) == 1
    assert summary(results) == expected
    assert ((0, (("a", 0), ("b", 0), ("c", 0))) in [(s, m) for s, m, _, _ in expected])


def test_the_dry_run_names_what_the_fold_asks_for():
    plain = Counting()
    fold(OUTPUTS, CONFIG, plain, [0, 1])
    asked = {t for call in plain.calls for t in call}
    assert set(compared_explanations(OUTPUTS, CONFIG, [0, 1])) == asked
    assert "cirrhosis" in asked and "other" in asked


def test_nothing_to_compare_asks_for_nothing():
    counting = Counting()
    lone = [DetectorOutput("a", [det(0, 0.8, "effusion")]),
            DetectorOutput("b", [det(1, 0.6, "prior")])]
    combine(lone, CONFIG, counting, {0: "s0", 1: "s1"})
    assert counting.calls == []


def test_a_text_the_dry_run_did_not_name_still_reaches_the_embedder():
    counting = Counting()
    lookup = prefetched(counting, ["effusion", "prior"])
    vectors = lookup(["prior", "cirrhosis", "effusion", "cirrhosis"])
    assert counting.calls == [["effusion", "prior"], ["cirrhosis"]]
    assert vectors.tolist() == [AXES["prior"], AXES["cirrhosis"], AXES["effusion"],
                                AXES["cirrhosis"]]
    lookup(["cirrhosis"])
    assert len(counting.calls) == 2
