"""The combination's own calibration: isotonic probabilities on one half of the studies, the
display threshold by RadFlag's exact conformal rule on the other, and what "enough" means."""
import random
from fractions import Fraction

import pytest

from workers.combine.calibration import (
    GRID,
    Example,
    ProbabilityMap,
    ScoreCalibration,
    fit,
    isotonic,
    readiness,
    split,
)


def test_isotonic_pools_adjacent_violators_with_the_rule_of_succession():
    mapping = isotonic([(0.1, False), (0.2, True), (0.3, False), (0.4, True), (0.4, True)])
    # 0.3 (wrong share 0) comes after 0.2 (share 1): pooled into one block, 1 wrong of 2.
    # Each block is then (wrong + 1)/(sentences + 2): 1/3, 2/4, 3/4.
    assert mapping.starts == (0.1, 0.2, 0.4) and mapping.counts == (1, 2, 2)
    assert mapping.probabilities == (0.3333, 0.5, 0.75)
    assert [mapping(s) for s in (0.0, 0.1, 0.25, 0.39, 0.4, 0.9)] == [
        0.3333, 0.3333, 0.5, 0.5, 0.75, 0.75]
    assert ProbabilityMap.from_dict(mapping.as_dict()) == mapping


def test_equal_scores_are_one_block():
    mapping = isotonic([(0.5, True), (0.5, False), (0.5, False), (0.2, False)])
    assert mapping.starts == (0.2, 0.5) and mapping.probabilities == (0.3333, 0.4)


def test_neighbours_with_equal_shares_pool_so_the_smoothing_sees_all_their_sentences():
    mapping = isotonic([(0.1, False)] + [(0.2, False)] * 10 + [(0.5, True)] * 3)
    assert mapping.starts == (0.1, 0.5) and mapping.counts == (11, 3)
    assert mapping.probabilities == (round(1 / 13, 4), 0.8)  # 0 of 11 → 1/13, not 1/3


def test_smoothing_a_small_block_never_makes_the_probability_decrease():
    # 0 of 1 then 1 of 20 wrong rise (0 < 0.05), but smoothed they fall (1/3 > 2/22): pooled
    # again into 3/25.
    mapping = isotonic([(0.1, False), (0.2, True)] + [(0.2, False)] * 19 + [(0.5, True)] * 3)
    assert mapping.starts == (0.1, 0.5) and mapping.counts == (21, 3)
    assert mapping.probabilities == (0.12, 0.8)


def test_studies_alternate_between_the_two_halves():
    examples = [Example(0.5, False, study) for study in ("a", "a", "b", "c", "b", "d")]
    fit_half, held = split(examples)
    assert {e.study for e in fit_half} == {"a", "c"} and {e.study for e in held} == {"b", "d"}


def _examples(rng, studies, start=0):
    """Sentences of ``studies`` studies: wrong ones score high, right ones mostly low, with an
    overlap, and some right sentences the combination did not score at all."""
    found = []
    for number in range(start, start + studies):
        for _ in range(5):
            wrong = rng.random() < 0.3
            if not wrong and rng.random() < 0.3:
                score = None
            else:
                score = round(min(1.0, max(0.0, rng.gauss(0.6 if wrong else 0.3, 0.15))), 2)
            found.append(Example(score, wrong, f"s{number}"))
    return found


def _brute_force_threshold(held, mapping, alpha):
    """The lowest t = k/100, k ≥ 1, whose (true sentences flagged + 1)/(true sentences + 1)
    is at most α."""
    right = [e for e in held if not e.error]
    for k in range(1, GRID + 1):
        t = Fraction(k, GRID)
        flagged = sum(1 for e in right
                      if e.score is not None and Fraction(repr(mapping(e.score))) >= t)
        if Fraction(flagged + 1, len(right) + 1) <= Fraction(str(alpha)):
            return float(t)
    return None


def test_the_display_threshold_is_radflags_rule_on_the_held_out_half():
    examples = _examples(random.Random(3), 60)
    result = fit(examples, alpha=0.1, minimum=10)
    _, held = split(examples)
    assert result.threshold == _brute_force_threshold(held, result.mapping, 0.1)
    assert result.held_out["adjusted_risk"] <= 0.1
    assert result.held_out["true_flag_rate"] < 0.1 and result.held_out["error_catch_rate"] > 0.5
    calibration = ScoreCalibration(result.mapping, result.threshold, 0.1)
    scored = [e for e in held if e.score is not None]
    assert all(calibration.flags(e.score) == (result.mapping(e.score) >= result.threshold)
               for e in scored)


def test_on_new_studies_the_share_of_true_sentences_flagged_stays_within_alpha_on_average():
    rng = random.Random(11)
    shares = []
    for _ in range(40):
        result = fit(_examples(rng, 60), alpha=0.1, minimum=10)
        calibration = ScoreCalibration(result.mapping, result.threshold, 0.1)
        right = [e for e in _examples(rng, 100) if not e.error]
        shares.append(sum(e.score is not None and calibration.flags(e.score) for e in right)
                      / len(right))
    assert sum(shares) / len(shares) <= 0.1


def test_a_sentence_the_combination_did_not_score_is_never_flagged():
    examples = [Example(None, False, f"s{i}") for i in range(40)]
    examples += [Example(0.9, True, f"s{i}") for i in range(40)]
    examples += [Example(0.2, False, f"s{i}") for i in range(40)]
    result = fit(examples, alpha=0.2, minimum=10)
    # Flagging every scored sentence would flag half of the true ones: far above α.
    assert result.threshold is not None and result.mapping(0.2) < result.threshold
    assert result.held_out["right_flagged"] == 0 and result.held_out["wrong_flagged"] == 20


def test_too_few_decisions_say_how_many_are_needed():
    examples = [Example(0.8, True, "a"), Example(0.2, False, "b"), Example(None, False, "b")]
    ready = readiness(examples, 0.1, minimum=20)
    assert not ready.ready
    assert ready.reason() == (
        "Not enough decisions yet: fitting needs at least 20 sentences judged wrong and 20 "
        "judged right among those the combination scored (now 1 and 1); and at least 9 "
        "sentences judged right in the hold-out half of the studies for α (now 2).")
    with pytest.raises(ValueError, match="at least 20 sentences judged wrong"):
        fit(examples, alpha=0.1, minimum=20)
