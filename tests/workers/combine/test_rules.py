"""Each site rule removes what it should and nothing else."""
import numpy as np
import pytest

from workers.combine import CombinationConfig, DetectorOutput, combine
from workers.combine.config import FilterRule
from workers.combine.rules import edit_similarity, matches, trigram_jaccard
from workers.types import Detection, Harm

SENTENCE = "There is a small left pleural effusion."


def det(explanation, harm=Harm.MEDIUM):
    return Detection(0, 0, len(SENTENCE), "judge", explanation, harm, 0.9)


def test_similarity_measures_on_hand_computed_cases():
    assert edit_similarity("abc", "abd") == pytest.approx(2 / 3)
    assert edit_similarity("Left effusion.", "left  effusion") == 1.0
    # trigrams of "a b c d": abc, bcd; of "a b c e": abc, bce -> 1 shared of 3
    assert trigram_jaccard("a b c d", "a b c e") == pytest.approx(1 / 3)


RESTATES_JACCARD = FilterRule("restates", "restates_sentence", threshold=0.5, metric="jaccard3")
RESTATES_EDIT = FilterRule("restates-edit", "restates_sentence", threshold=0.8, metric="edit")
OMISSION = FilterRule("omission", "omission")
PATTERN = FilterRule("devices", "pattern", pattern=r"\b(?:tube|line|catheter)\b")
HARM = FilterRule("trivial", "harm_below", harm="low")

REAL = det("The impression states no effusion, but this sentence states one on the left.")


@pytest.mark.parametrize("rule, removed", [
    (RESTATES_JACCARD, det("There is a small left pleural effusion here.")),
    (RESTATES_EDIT, det("There is small left pleural effusion.")),
    (OMISSION, det("The report does not mention the left pleural effusion.")),
    (OMISSION, det("Omits the position of the tube.")),
    (PATTERN, det("The tube tip is not described where expected.")),
    (HARM, det("A calcified granuloma is named.", harm=Harm.VERY_LOW)),
])
def test_each_rule_removes_its_pattern_and_keeps_a_real_flag(rule, removed):
    assert matches(rule, removed, SENTENCE)
    assert not matches(rule, REAL, SENTENCE)


def test_harm_below_keeps_what_is_at_or_above_the_level():
    assert not matches(HARM, det("x", harm=Harm.LOW), SENTENCE)
    assert not matches(HARM, det("x", harm=Harm.HIGH), SENTENCE)


def test_a_removed_combined_detection_is_kept_unflagged_with_the_rule_named():
    outputs = [DetectorOutput("judge", [det("The report does not mention the effusion."), REAL])]
    config = CombinationConfig(weights={"judge": 1.0}, order=("judge",), flag_threshold=0.3,
                               rules=(OMISSION,))
    results = combine(outputs, config, lambda texts: np.eye(len(texts), 4), {0: SENTENCE})
    flagged = {r.detection.explanation: (r.flagged, r.removed_by) for r in results}
    assert flagged[REAL.explanation] == (True, None)
    assert flagged["The report does not mention the effusion."] == (False, "omission")


def test_an_unknown_rule_kind_is_refused():
    with pytest.raises(ValueError):
        FilterRule("x", "vibes")


def test_the_edit_count_that_stops_early_gives_the_same_answer_at_the_threshold():
    rng = np.random.default_rng(7)
    words = ["no", "left", "right", "pleural", "effusion", "small", "is", "there", "a"]
    for _ in range(300):
        a = " ".join(rng.choice(words, rng.integers(1, 9)))
        b = " ".join(rng.choice(words, rng.integers(1, 9)))
        full = edit_similarity(a, b)
        for threshold in (0.3, 0.5, 0.8, full):
            assert (edit_similarity(a, b, threshold) >= threshold) == (full >= threshold)
        assert edit_similarity(a, b, 0.0) == full
