"""compare_reports: one error per wrong statement, in the right category, with its sentences,
its significance and a one-line explanation; none for a report against itself."""
from __future__ import annotations

import dataclasses

import pytest

from workers.compare import categories as cat
from workers.compare.compare import Comparison, compare_reports
from workers.compare.statements import read_report

REFERENCE = ("FINDINGS: Heart size is normal. There is a small right pleural effusion. "
             "No pneumothorax. Mild atelectasis at the left base.\n"
             "IMPRESSION: Small right pleural effusion.")


def only(comparison: Comparison):
    assert len(comparison.errors) == 1, [e.explanation for e in comparison.errors]
    return comparison.errors[0]


def test_a_report_against_itself_has_no_error_and_scores_zero():
    comparison = compare_reports(REFERENCE, REFERENCE)
    assert comparison.errors == ()
    assert comparison.score == 0
    assert comparison.counts() == dict.fromkeys(cat.KEYS, 0)


def test_a_denial_made_an_affirmation_is_one_significant_false_finding():
    candidate = REFERENCE.replace("No pneumothorax.", "Pneumothorax.")
    error = only(compare_reports(candidate, REFERENCE))
    assert error.category == cat.FALSE_FINDING
    assert error.significant  # a false pneumothorax leads to a chest tube
    assert error.candidate_sentence == "Pneumothorax."
    assert error.reference_sentence == "No pneumothorax."
    assert error.explanation == "States pneumothorax; the reference rules it out."


def test_one_wrong_sentence_listing_several_findings_is_one_error():
    reference = "FINDINGS: No pneumothorax or pleural effusion. Heart size is normal."
    candidate = "FINDINGS: Pneumothorax or pleural effusion. Heart size is normal."
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.FALSE_FINDING
    assert set(error.observations) == {"pneumothorax", "pleural effusion"}
    assert "pneumothorax and pleural effusion" in error.explanation


def test_a_finding_the_reference_never_mentions_is_a_false_finding_without_its_sentence():
    candidate = REFERENCE + " Large hiatal hernia."
    error = only(compare_reports(candidate, REFERENCE))
    assert error.category == cat.FALSE_FINDING
    assert error.candidate_sentence == "Large hiatal hernia."
    assert error.reference_sentence is None
    assert not error.significant  # an incidental hernia changes no care
    assert error.explanation == "States hiatal hernia, which the reference does not."


def test_a_finding_denied_is_a_missing_finding():
    candidate = REFERENCE.replace("There is a small right pleural effusion.",
                                  "There is no right pleural effusion.")
    comparison = compare_reports(candidate, REFERENCE)
    error = only(comparison)
    assert error.category == cat.MISSING_FINDING
    assert error.significant
    assert error.candidate_sentence == "There is no right pleural effusion."
    assert error.explanation == "Rules out pleural effusion, which the reference states."


def test_a_finding_left_out_is_a_missing_finding_naming_the_reference_sentence():
    candidate = ("FINDINGS: Heart size is normal. There is a small right pleural effusion. "
                 "No pneumothorax.\nIMPRESSION: Small right pleural effusion.")
    error = only(compare_reports(candidate, REFERENCE))
    assert error.category == cat.MISSING_FINDING
    assert error.reference_sentence == "Mild atelectasis at the left base."
    assert error.candidate_sentence is None
    assert not error.significant  # atelectasis: common, rarely treated


def test_an_omitted_denial_is_a_missing_finding_that_is_never_significant():
    candidate = REFERENCE.replace(" No pneumothorax.", "")
    error = only(compare_reports(candidate, REFERENCE))
    assert error.category == cat.MISSING_FINDING
    assert not error.significant
    assert error.explanation == "Does not rule out pneumothorax, as the reference does."


def test_a_normal_statement_keeps_what_a_normal_statement_implies_not_a_stated_denial():
    reference = "FINDINGS: The lungs are clear. No pneumothorax."
    # "no acute cardiopulmonary abnormality" implies no pneumothorax, but the reference's own
    # pertinent negative is gone: an insignificant omission
    candidate = "FINDINGS: The lungs are clear. No acute cardiopulmonary abnormality."
    error = only(compare_reports(candidate, reference))
    assert (error.category, error.significant) == (cat.MISSING_FINDING, False)
    # a broader denial said outright keeps a narrower one
    assert compare_reports("FINDINGS: No focal airspace disease.",
                           "FINDINGS: No focal consolidation.").errors == ()


def test_a_candidate_denial_the_reference_does_not_contradict_is_no_error():
    candidate = REFERENCE + " No fracture."
    assert compare_reports(candidate, REFERENCE).errors == ()


def test_a_finding_written_in_place_of_another_is_one_false_finding():
    reference = "FINDINGS: Borderline cardiomegaly. The lungs are clear."
    candidate = "FINDINGS: Borderline aspergillosis. The lungs are clear."
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.FALSE_FINDING
    assert error.candidate_sentence == "Borderline aspergillosis."
    assert error.reference_sentence == "Borderline cardiomegaly."
    assert error.explanation == "States “aspergillosis” where the reference states cardiomegaly."


def test_a_denied_finding_replaced_by_another_denial_is_an_omitted_denial():
    reference = "FINDINGS: Heart size is normal. No pneumothorax or pleural effusion."
    candidate = "FINDINGS: Heart size is normal. No cirrhosis or pleural effusion."
    error = only(compare_reports(candidate, reference))
    assert (error.category, error.significant) == (cat.MISSING_FINDING, False)
    assert error.candidate_sentence == "No cirrhosis or pleural effusion."
    assert "pneumothorax" in error.explanation


def test_the_other_side_is_a_location_error_even_when_another_sentence_leaves_it_unstated():
    reference = ("FINDINGS: Right IJ central venous catheter terminates in the low SVC. "
                 "The catheter is unchanged.")
    candidate = reference.replace("Right IJ", "Left IJ")
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.LOCATION
    assert error.candidate_sentence.startswith("Left IJ")
    assert error.reference_sentence.startswith("Right IJ")
    assert "left" in error.explanation and "right" in error.explanation


def test_a_wrong_lung_zone_is_a_location_error_and_bilateral_agrees_with_both_sides():
    error = only(compare_reports("FINDINGS: Opacity in the right upper lobe.",
                                 "FINDINGS: Opacity in the right lower lobe."))
    assert error.category == cat.LOCATION
    assert error.significant  # an opacity drives the differential
    assert compare_reports("FINDINGS: Bilateral pleural effusions.",
                           "FINDINGS: Left pleural effusion. Right pleural effusion.").errors == ()


def test_a_wrong_size_is_a_severity_error():
    error = only(compare_reports("FINDINGS: Large right pleural effusion.",
                                 "FINDINGS: Small right pleural effusion."))
    assert error.category == cat.SEVERITY
    assert error.significant
    assert error.explanation == ("Wrong severity: pleural effusion large, the reference "
                                 "small.")
    # one size apart in the engine's groups is the same size
    assert compare_reports("FINDINGS: Mild cardiomegaly.",
                           "FINDINGS: Small cardiomegaly.").errors == ()


def test_a_comparison_with_a_prior_the_reference_does_not_have_is_a_false_comparison():
    reference = "FINDINGS: Small right pleural effusion."
    candidate = "FINDINGS: Small right pleural effusion, unchanged from the prior exam."
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.FALSE_COMPARISON
    assert not error.significant
    assert error.explanation == ("Compares with a prior exam (“unchanged”); the reference "
                                 "refers to none.")
    # a COMPARISON section naming an exam is a prior the candidate may compare with
    with_prior = "COMPARISON: Chest radiograph ___.\n" + reference
    assert compare_reports(candidate, with_prior).errors == ()
    # ... and "None." names none
    assert compare_reports(candidate, "COMPARISON: None.\n" + reference).errors


def test_a_change_the_reference_contradicts_is_a_false_comparison():
    reference = "FINDINGS: Moderate pulmonary edema has worsened since the prior exam."
    candidate = "FINDINGS: Moderate pulmonary edema has improved since the prior exam."
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.FALSE_COMPARISON
    assert error.significant  # diuretics are given or withheld
    assert "edema improved, the reference worsened" in error.explanation


def test_a_finding_stated_without_its_change_is_a_missing_comparison():
    reference = "FINDINGS: The right pleural effusion has increased since the prior study."
    candidate = "FINDINGS: There is a right pleural effusion."
    error = only(compare_reports(candidate, reference))
    assert error.category == cat.MISSING_COMPARISON
    assert error.significant
    assert error.explanation == ("Does not say that pleural effusion increased, as the "
                                 "reference does.")


def test_a_finding_missing_altogether_is_not_also_a_missing_comparison():
    reference = "FINDINGS: The right pleural effusion has increased since the prior study."
    error = only(compare_reports("FINDINGS: The lungs are clear. No pleural effusion.",
                                 reference))
    assert error.category == cat.MISSING_FINDING


def test_errors_come_as_the_command_writes_them():
    candidate = REFERENCE.replace("No pneumothorax.", "Pneumothorax.")
    out = compare_reports(candidate, REFERENCE).to_dict()
    assert out["score"] == 1.0
    assert out["errors"] == [{
        "category": "false_finding", "significant": True,
        "candidate_sentence": "Pneumothorax.", "reference_sentence": "No pneumothorax.",
        "explanation": "States pneumothorax; the reference rules it out."}]


def test_the_score_counts_errors_and_counts_split_by_category():
    candidate = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. "
                 "Pneumothorax. Mild atelectasis at the left base.\n"
                 "IMPRESSION: Small right pleural effusion.")
    comparison = compare_reports(candidate, REFERENCE)
    assert comparison.score == len(comparison.errors) == 2
    assert comparison.counts()[cat.FALSE_FINDING] == 1
    assert comparison.counts()[cat.SEVERITY] == 1
    assert comparison.counts(significant_only=True)[cat.FALSE_FINDING] == 1


def test_only_the_image_sections_are_compared():
    reference = "INDICATION: Evaluate for pneumonia.\nFINDINGS: The lungs are clear."
    candidate = "INDICATION: Pneumothorax.\nFINDINGS: The lungs are clear."
    assert compare_reports(candidate, reference).errors == ()


@pytest.mark.parametrize("candidate", ["", "   ", "INDICATION: cough."])
def test_a_candidate_with_nothing_to_compare_misses_what_the_reference_states(candidate):
    comparison = compare_reports(candidate, REFERENCE)
    assert {e.category for e in comparison.errors} == {cat.MISSING_FINDING}
    assert all(e.candidate_sentence is None for e in comparison.errors)


def test_the_reader_is_an_argument_so_another_model_of_statements_can_serve():
    calls = []

    def reader(text):
        calls.append(text)
        reading = read_report(text)
        # a reader that knows the heart is large whatever the words say
        return dataclasses.replace(reading, statements=tuple(
            dataclasses.replace(s, status="present") if s.observation == "cardiomegaly" else s
            for s in reading.statements))

    comparison = compare_reports("FINDINGS: Heart size is normal.",
                                 "FINDINGS: Heart size is normal.", reader=reader)
    assert calls == ["FINDINGS: Heart size is normal."] * 2
    assert comparison.errors == ()
