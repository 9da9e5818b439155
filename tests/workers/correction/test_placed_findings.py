"""Shapes a denial takes once it lost its "no": pleural and bone findings, which a report that
states them always places (a side, a size, a site), stated without one; a denial given as an
example of an affirmation."""
import pytest

from workers.correction.builtin import denial_shape_signals, disjunction_signals
from workers.study import StudyContext


def _ctx(text):
    return StudyContext("FINDINGS: Heart size is normal. " + text)


@pytest.mark.parametrize("text", [
    "Large pneumothorax is detected.",
    "There is large pleural effusion.",
    "AP chest compared to ___: There is pneumothorax.",
])
def test_a_large_or_headed_unplaced_finding_is_a_denial_shape(text):
    assert [i for i, _ in denial_shape_signals(_ctx(text))] == [1], text


@pytest.mark.parametrize("text", [
    "Large right pneumothorax is detected.",
    "Small pleural effusions are also noted.",
    "Mild pleural effusions are stable.",
    "AP chest compared to ___: There is a small left pneumothorax.",
])
def test_a_placed_or_small_finding_is_not(text):
    assert denial_shape_signals(_ctx(text)) == [], text


def test_a_list_of_unplaced_pleural_findings_weighs_more_than_a_differential():
    [(_, unplaced)] = disjunction_signals(_ctx("Pneumothorax or appreciable pleural effusion."))
    [(_, differential)] = disjunction_signals(_ctx("Minimal scarring or atelectasis left lung "
                                                   "base."))
    [(_, placed)] = disjunction_signals(_ctx("Small left pleural effusion or pneumothorax."))
    assert unplaced.confidence == 0.6 and "side, a size or a place" in unplaced.explanation
    assert differential.confidence == placed.confidence == 0.5


def test_a_denial_given_as_an_example_of_an_affirmation_is_a_denial_shape():
    [(index, signal)] = denial_shape_signals(_ctx("There is evidence of complications, "
                                                  "notably no pneumothorax."))
    assert index == 1 and "example" in signal.explanation
    for text in ("There is no evidence of complications, notably no pneumothorax.",
                 "No acute cardiopulmonary process, specifically no evidence of active "
                 "tuberculosis."):
        assert denial_shape_signals(_ctx(text)) == [], text
