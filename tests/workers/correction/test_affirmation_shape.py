"""Denials worded as reports word a present finding: the shape of a statement that gained a
"no" (a position, a change since a prior exam, a cause said of a denied finding)."""
import pytest

from tests.workers.library.fakes import make_library
from workers.correction import correct
from workers.correction.builtin import affirmation_shape_signals
from workers.judge import ReportContext

CAUGHT = [
    "No ET tube ends 4.5 cm above the carina.",
    "No nasogastric tube passes into the stomach and out of view.",
    "No tracheostomy tube remains in place.",
    "No right apical pneumothorax unchanged since ___.",
    "No remote rib fractures again",
    "There is no bilateral moderate effusions layering posteriorly that have increased "
    "compared to prior.",
    "There is no left base opacity which may represent atelectasis.",
    "No hyperinflation due to mild emphysema.",
]
QUIET = [
    "No pneumothorax.",
    "There is no focal air space opacity to suggest a pneumonia.",
    "No focal consolidation to suggest pneumonia or active tuberculous infection.",
    "The ET tube ends 4.5 cm above the carina.",
    "Mild pulmonary edema has not worsened since ___.",
    "Severe right lower lobe atelectasis has not improved.",
    "No interval change in the diffuse increased bilateral pulmonary interstitial markings.",
    "There is no definite right apical pneumothorax, although there is some lucency at the "
    "right base which would raise the possibility of a basilar pneumothorax.",
    "No pleural effusion or pneumothorax.",
]


@pytest.mark.parametrize("text", CAUGHT)
def test_a_denied_finding_given_a_position_change_or_cause_is_suspected(text):
    ctx = ReportContext("FINDINGS: Heart size is normal. " + text)
    assert [i for i, _ in affirmation_shape_signals(ctx)] == [1], text


@pytest.mark.parametrize("text", QUIET)
def test_a_denials_own_idiom_is_not_suspected(text):
    assert affirmation_shape_signals(ReportContext("FINDINGS: " + text)) == [], text


def test_the_gained_no_is_removed_and_the_finding_kept():
    result = correct(ReportContext("FINDINGS: Heart size is normal. No ET tube ends 4.5 cm "
                                   "above the carina.\nIMPRESSION: No acute cardiopulmonary "
                                   "process.", library=make_library()))
    assert result.has_error and result.sentence_index == 1
    assert result.suggestion is not None and not result.suggestion.lower().startswith("no ")
    assert "ET tube ends 4.5 cm above the carina" in result.suggestion
