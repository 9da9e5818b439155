"""Issue 31: comparison claims checked against the prior report, one test per check with the
prior sentence, the current sentence and the explanation; clean follow-ups stay quiet."""
from __future__ import annotations

import pytest

from workers.prior import detections, find_issues
from workers.study.context import StudyContext


def audit(current: str, prior: str | None, **dates):
    ctx = StudyContext(current, prior_report=prior, **dates)
    return ctx, {d.sentence_index: d for d in detections(ctx)}


def test_called_new_but_on_the_prior():
    prior = ("FINDINGS: Right internal jugular central venous catheter with tip in the lower "
             "SVC. No pneumothorax.")
    current = ("FINDINGS: There is a new right internal jugular central venous catheter with "
               "its tip in the lower SVC. No pneumothorax.")
    ctx, found = audit(current, prior, prior_date="2025-04-01", date="2025-04-02")
    assert sorted(found) == [0]
    d = found[0]
    assert d.evidence["check"] == "new_but_prior"
    assert d.explanation == (
        "Calls central venous catheter new, but the prior report (2025-04-01) says \u201cRight "
        "internal jugular central venous catheter with tip in the lower SVC.\u201d. This "
        "sentence is the one doubted: a finding the prior report states is not new.")
    assert d.evidence["prior_sentence"] == ("Right internal jugular central venous catheter "
                                            "with tip in the lower SVC.")
    assert d.suggestion is None and d.harm.value != "none"


def test_called_unchanged_but_the_prior_denies_it():
    prior = "FINDINGS: Decreased left pleural effusion, now small. No pneumothorax."
    current = "FINDINGS: Small left apical pneumothorax is stable. Small left pleural effusion."
    _, found = audit(current, prior)
    assert sorted(found) == [0]
    assert found[0].evidence["check"] == "unchanged_but_absent"
    assert found[0].explanation == (
        "Calls pneumothorax unchanged or again seen, but the prior report says \u201cNo "
        "pneumothorax.\u201d. This sentence is the one doubted: the prior report says it was "
        "not there, so it cannot be unchanged or again seen.")


def test_called_again_seen_but_the_prior_never_names_it():
    prior = "FINDINGS: No lines or tubes. The lungs are clear."
    current = "FINDINGS: Right upper extremity PICC is again seen. The lungs are clear."
    _, found = audit(current, prior)
    assert found[0].evidence["check"] == "unchanged_but_absent"
    assert found[0].evidence["prior_sentence"] is None
    assert "never names it" in found[0].explanation


def test_said_to_have_resolved_but_never_there():
    prior = ("FINDINGS: Right chest tube in place. Small right apical pneumothorax. No left "
             "pneumothorax.")
    current = ("FINDINGS: Right chest tube remains in place. Small right apical pneumothorax, "
               "unchanged. The left apical pneumothorax has resolved.")
    _, found = audit(current, prior)
    assert sorted(found) == [2]
    assert found[2].evidence["check"] == "resolved_but_never"
    assert "\u201cNo left pneumothorax.\u201d" in found[2].explanation


def test_no_longer_visible_but_never_there():
    prior = "FINDINGS: Mild cardiomegaly. Lungs clear.\nIMPRESSION: Mild cardiomegaly."
    current = ("FINDINGS: Mild cardiomegaly, unchanged. The previously seen left upper lobe "
               "nodule is no longer visible. Lungs clear.\nIMPRESSION: Stable mild cardiomegaly.")
    _, found = audit(current, prior)
    assert sorted(found) == [1]
    assert found[1].evidence["check"] == "resolved_but_never"


def test_improved_but_never_there():
    prior = "Findings: Heart size is normal. The lungs are clear."
    current = ("Comparison: 2025-04-10.\nFindings: Improved right lower lobe consolidation. "
               "Heart size is normal.\nImpression: Improving RLL pneumonia.")
    _, found = audit(current, prior)
    assert {d.evidence["check"] for d in found.values()} == {"resolved_but_never"}
    assert len(found) == 2


@pytest.mark.parametrize("prior, current, why", [
    ("FINDINGS: Moderate pulmonary edema.",
     "FINDINGS: Mild pulmonary edema, worse than on the prior study.", "a lower grade now"),
    ("FINDINGS: Tiny left apical pneumothorax, measuring approximately 5 mm.",
     "FINDINGS: The left pneumothorax has decreased in size, now moderate, measuring "
     "approximately 3 cm at the apex.", "30 mm now, 5 mm before"),
    ("FINDINGS: A 12 mm nodule is present in the right upper lobe.",
     "FINDINGS: The right upper lobe nodule has increased in size, now measuring 9 mm.",
     "9 mm now, 12 mm before"),
    ("FINDINGS: Patchy opacity in the right lower lobe.",
     "FINDINGS: Dense consolidation of the entire right lower lobe, improved from the prior "
     "examination.", "a higher grade now"),
])
def test_the_direction_against_the_two_grades(prior, current, why):
    _, found = audit(current, prior)
    (d,) = found.values()
    assert d.evidence["check"] == "direction"
    assert d.explanation.endswith(why + ".")


def test_the_direction_that_agrees_is_quiet():
    prior = "FINDINGS: Small right apical pneumothorax, approximately 1 cm."
    current = ("FINDINGS: The right pneumothorax has increased in size, now moderate, "
               "measuring approximately 3 cm at the apex.")
    assert audit(current, prior)[1] == {}


@pytest.mark.parametrize("current, flagged_text", [
    ("COMPARISON: None.\nFINDINGS: The lungs are clear.", "None."),
    ("COMPARISON: No prior studies available.\nFINDINGS: The lungs are clear.",
     "No prior studies available."),
    ("FINDINGS: A 7 mm nodule.\nIMPRESSION: 7 mm nodule; without prior imaging, its "
     "chronicity cannot be determined.",
     "7 mm nodule; without prior imaging, its chronicity cannot be determined."),
])
def test_no_comparison_although_a_prior_exists(current, flagged_text):
    prior = "FINDINGS: The lungs are clear."
    ctx, found = audit(current, prior, prior_date="2025-01-20")
    (d,) = found.values()
    assert d.evidence["check"] == "comparison_none"
    assert ctx.sentence(d.sentence_index).text == flagged_text
    assert d.explanation == ("Says there is no earlier study to compare with, but this study "
                             "has a prior report (2025-01-20): its comparison claims can be "
                             "checked against it.")
    if ctx.sentence(d.sentence_index).section == "comparison":
        assert d.suggestion == "2025-01-20."


def test_a_prior_finding_that_needs_follow_up_left_out():
    prior = ("FINDINGS: A 9 mm nodule is seen in the right upper lobe. Heart size is normal.\n"
             "IMPRESSION: 9 mm right upper lobe nodule. Recommend chest CT.")
    current = ("FINDINGS: Heart size is normal. No focal consolidation. No pleural effusion.\n"
               "IMPRESSION: No acute cardiopulmonary process.")
    ctx, found = audit(current, prior, prior_date="2025-01-10")
    (d,) = found.values()
    assert ctx.sentence(d.sentence_index).text == "No acute cardiopulmonary process."
    assert d.evidence["check"] == "prior_not_addressed"
    assert d.explanation == (
        "Leaves out nodule: the prior report (2025-01-10) says \u201cA 9 mm nodule is seen in "
        "the right upper lobe.\u201d, and this report neither names it nor says it resolved or "
        "was removed. A finding that needs follow-up should not be dropped silently; this "
        "impression is where it belongs.")
    assert d.harm.value == "medium" or d.harm.value == "high"


def test_tubes_left_out_and_tubes_said_removed():
    prior = ("FINDINGS: The nasogastric tube is coiled in the upper esophagus. Mild pulmonary "
             "edema.")
    current = "FINDINGS: Mild pulmonary edema is unchanged.\nIMPRESSION: Stable mild edema."
    _, found = audit(current, prior)
    assert [d.evidence["observation"] for d in found.values()] == ["enteric tube"]
    prior = "FINDINGS: Endotracheal tube tip 4 cm above the carina. Nasogastric tube in the " \
            "stomach."
    removed = ("FINDINGS: Interval removal of the endotracheal and nasogastric tubes.\n"
               "IMPRESSION: Interval extubation.")
    assert audit(removed, prior)[1] == {}


@pytest.mark.parametrize("prior, current", [
    # a new effusion the prior did not have
    ("FINDINGS: The lungs are clear. No pleural effusion.",
     "COMPARISON: 2025-01-03.\nFINDINGS: There is a new small left pleural effusion.\n"
     "IMPRESSION: New small left pleural effusion."),
    ("FINDINGS: Small right pleural effusion. Mild cardiomegaly.",
     "FINDINGS: Small right pleural effusion, unchanged. Mild cardiomegaly, unchanged.\n"
     "IMPRESSION: No interval change."),
    # not seen on a portable film is no silent drop
    ("FINDINGS: A 9 mm nodule is present in the right upper lobe.",
     "FINDINGS: The previously described right upper lobe nodule is not well seen on this "
     "portable radiograph.\nIMPRESSION: No acute cardiopulmonary process."),
    ("Findings: Hyperinflated lungs consistent with emphysema. Calcified granuloma in the "
     "right lower lobe.",
     "Findings: Emphysema and a calcified right lower lobe granuloma are again seen.\n"
     "Impression: No significant interval change."),
    # Kerley B lines are no "lines"
    ("FINDINGS: Right PICC with the tip in the SVC.",
     "FINDINGS: Right PICC in unchanged position. Kerley B lines.\nIMPRESSION: Edema."),
    # broad words of a change read as what the prior named there
    ("FINDINGS: Left lower lobe atelectasis.\nIMPRESSION: Left basilar atelectasis.",
     "FINDINGS: Improved left basilar opacity.\nIMPRESSION: Improving left lower lobe "
     "atelectasis."),
    ("FINDINGS: Endotracheal tube 4 cm above carina. Enteric tube in stomach.",
     "FINDINGS: Interval extubation. Enteric tube removed. Lungs clear.\nIMPRESSION: Interval "
     "removal of support devices."),
    # the volume a collapsed lobe lost is what re-expands
    ("Findings: Right upper lobe collapse. Heart normal.",
     "Findings: Right upper lobe volume loss has resolved with re-expansion of the lung.\n"
     "Impression: Re-expansion of the right upper lobe."),
])
def test_clean_follow_ups(prior, current):
    assert audit(current, prior)[1] == {}


def test_without_a_prior_report_nothing_is_checked():
    current = "COMPARISON: None.\nFINDINGS: New small left pleural effusion."
    assert find_issues(StudyContext(current)) == []
    # a "prior" dated after the study is no prior
    assert find_issues(StudyContext(current, prior_report="FINDINGS: Small left effusion.",
                                    prior_date="2025-03-01", date="2025-02-01")) == []
