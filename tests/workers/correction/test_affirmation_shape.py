"""Denials worded as reports word a present finding: the shape of a statement that gained a
"no" (a position, a change since a prior exam, a cause said of a denied finding)."""
import pytest

from tests.workers.library.fakes import make_library
from workers.correction import correct
from workers.correction.builtin import affirmation_shape_signals
from workers.study import StudyContext

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
    # a grade, a count or numbered place, a distribution, persistence: only what is there
    "Mild to moderate cardiomegaly is not demonstrated.",
    "No displaced right 7th rib fracture.",
    "Multiple rib fractures on the right side are not seen.",
    "No multilevel degenerative changes in the thoracic spine.",
    "Left greater than right small bilateral pleural effusions are not seen.",
    "There continue to be bilateral layering effusions without associated patchy opacities, "
    "left greater than right, likely reflecting atelectasis.",
    "There are no diffuse bilateral airspace opacities with a central predominance.",
    "No cardiac silhouette remains enlarged.",
    # a spread over both sides, an appearance, a course, between the "no" and the finding
    "No bilateral pleural effusions.",
    "No heterogeneous opacification in the periphery.",
    # a grade further from its "no"; findings that come with the denied one
    "In addition, there is no interval appearance of mild to moderate pulmonary and "
    "interstitial edema.",
    "No cardiomegaly with retrocardiac atelectasis and a small left pleural effusion.",
    # two readings weighed with "and/or"
    "There is no underlying collapse and/or consolidation.",
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
    # the size a denial rules out, a finding that has gone, plain denials after the finding
    "No large pneumothorax.",
    "No moderate or large pleural effusion.",
    "No more than mild pulmonary edema.",
    "Previously noted small left pleural effusion appears resolved.",
    "Minimal subsegmental atelectasis at the left base otherwise negative for focal confluent "
    "airspace disease.",
    "Pneumothorax is not seen.",
    "Displaced rib fractures are not seen.",
    "No pleural effusions are present bilaterally.",
    "No focal consolidation is seen in either lung.",
    "The patchy opacity at the left base has resolved and the pleural effusion is not seen.",
    "Bilateral pleural effusions have resolved.",
    "No interval development of pneumothorax, large effusion or mild edema.",
    "No pneumothorax with the chest tube in place.",
    "No focal consolidation, with mild bibasilar atelectasis.",
    # a denial's own wording, and comparisons
    "No patchy or confluent consolidation.",
    "No confluent consolidation.",
    "No worsening pulmonary edema.",
    "No increasing pleural effusion.",
]


@pytest.mark.parametrize("text", CAUGHT)
def test_a_denied_finding_given_a_position_change_or_cause_is_suspected(text):
    ctx = StudyContext("FINDINGS: Heart size is normal. " + text)
    assert [i for i, _ in affirmation_shape_signals(ctx)] == [1], text


@pytest.mark.parametrize("text", QUIET)
def test_a_denials_own_idiom_is_not_suspected(text):
    assert affirmation_shape_signals(StudyContext("FINDINGS: " + text)) == [], text


def test_the_gained_no_is_removed_and_the_finding_kept():
    result = correct(StudyContext("FINDINGS: Heart size is normal. No ET tube ends 4.5 cm "
                                  "above the carina.\nIMPRESSION: No acute cardiopulmonary "
                                  "process.", library=make_library()))
    assert result.has_error and result.sentence_index == 1
    assert result.suggestion is not None and not result.suggestion.lower().startswith("no ")
    assert "ET tube ends 4.5 cm above the carina" in result.suggestion
