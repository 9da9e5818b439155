"""The judge's built-in checks, each on a report made to show it, and on a sound report."""
import pytest

from tests.workers.library.fakes import REFERENCE_REPORTS, make_library
from workers.correction import correct
from workers.judge import judge
from workers.rules.checks import (
    contradictions,
    laterality_conflicts,
    out_of_domain,
    run_checks,
    unsupported_by_library,
)
from workers.study import StudyContext
from workers.types import Harm

SOUND = ("FINDINGS: The heart is normal in size. The lungs are clear. No pleural effusion or "
         "pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality.")


@pytest.fixture(scope="module")
def library():
    return make_library()


def ctx(text, library=None, **kwargs):
    return StudyContext(text, library=library, **kwargs)


def test_a_sound_report_raises_nothing(library):
    assert run_checks(ctx(SOUND, library)) == []
    assert judge(ctx(SOUND, library)) == []


def test_a_finding_stated_present_and_absent_in_findings_and_impression():
    report = ("FINDINGS: The heart is normal in size. Large right pneumothorax.\n"
              "IMPRESSION: No pneumothorax.")
    [issue] = contradictions(ctx(report))
    assert issue.rule == "impression_vs_findings"
    assert {issue.sentence, issue.related} == {1, 2}
    assert issue.harm == Harm.HIGH and issue.observation == "pneumothorax"


def test_an_impression_of_no_acute_disease_against_an_acute_finding(library):
    report = ("FINDINGS: The heart is normal in size. There is focal airspace consolidation.\n"
              "IMPRESSION: No acute cardiopulmonary abnormality.")
    [issue] = contradictions(ctx(report, library))
    assert (issue.rule, issue.sentence, issue.related) == ("impression_vs_findings", 1, 2)
    assert "consolidation" in issue.explanation


def test_an_impression_the_findings_detail_supports_is_not_the_suspect_of_their_summary():
    # issue 31: "The lungs are clear" is at odds with the findings' own consolidation; the
    # impression that names the pneumonia agrees with that detail
    report = ("Findings: The lungs are clear. Dense consolidation is present in the right "
              "lower lobe with air bronchograms. The heart is normal in size.\n"
              "Impression: Right lower lobe pneumonia.")
    assert all(issue.sentence != 3 for issue in contradictions(ctx(report)))
    alone = "Findings: The lungs are clear.\nImpression: Right lower lobe pneumonia."
    [issue] = contradictions(ctx(alone))
    assert issue.sentence == 1


def test_a_sentence_that_contradicts_itself():
    [issue] = contradictions(ctx("FINDINGS: The lungs are clear with focal consolidation."))
    assert (issue.rule, issue.sentence, issue.related) == ("contradiction", 0, None)


def test_old_changes_and_explained_opacities_do_not_contradict_a_normal_summary():
    report = ("FINDINGS: Old healed left rib fractures. Streaky opacity at the left base likely "
              "atelectasis.\nIMPRESSION: No acute cardiopulmonary abnormality.")
    assert contradictions(ctx(report)) == []


def test_sides_that_disagree_between_findings_and_impression():
    report = "FINDINGS: Left lower lobe consolidation.\nIMPRESSION: Right lower lobe pneumonia."
    [issue] = laterality_conflicts(ctx(report))
    assert issue.rule == "laterality" and {issue.sentence, issue.related} == {0, 1}
    both = "FINDINGS: Bilateral lower lobe consolidation.\nIMPRESSION: Right lower lobe pneumonia."
    assert laterality_conflicts(ctx(both)) == []
    cleared = ("FINDINGS: Persistent patchy opacity in the right middle lobe.\n"
               "IMPRESSION: Cleared left lower lobe airspace disease with persistent right "
               "middle lobe airspace disease.")
    assert laterality_conflicts(ctx(cleared)) == []
    moved = ("FINDINGS: The previously noted right pleural effusion has resolved. There is a new "
             "small left pleural effusion.\nIMPRESSION: 1. Resolved right pleural effusion. "
             "2. New small left pleural effusion.")
    assert laterality_conflicts(ctx(moved)) == []


@pytest.mark.parametrize("sentence, term", [
    ("No pleural effusion or cirrhosis.", "cirrhosis"),
    ("Patchy right basilar appendicitis.", "appendicitis"),
    ("There is no evidence of migraine.", "migraine"),
    ("No duodenal ulcer.", "duodenal"),
])
def test_conditions_a_chest_radiograph_cannot_show(library, sentence, term):
    issues = out_of_domain(ctx(f"FINDINGS: The heart is normal in size. {sentence}", library))
    assert issues and issues[0].rule == "out_of_domain" and issues[0].sentence == 1
    assert term in issues[0].term.lower()


def test_the_library_writes_the_sentence_the_other_way_round(library):
    report = ("FINDINGS: The heart is normal in size. Pleural effusion or pneumothorax.\n"
              "IMPRESSION: Normal chest.")
    issues = unsupported_by_library(ctx(report, library))
    assert [(i.rule, i.sentence) for i in issues] == [("unsupported_by_library", 1)]
    assert "no pleural effusion or pneumothorax" in issues[0].explanation


def test_the_audited_reports_own_library_copy_is_not_evidence():
    reports = [("r1", "FINDINGS: Pleural effusion or pneumothorax."),
               ("r2", "FINDINGS: No pleural effusion or pneumothorax.")]
    library = make_library(reports)
    text = "FINDINGS: Pleural effusion or pneumothorax."
    assert ctx(text, library).polarity(0).own == 1
    assert ctx(text, library, external_id="r1").polarity(0).own == 0


def test_judge_detections_carry_the_documented_evidence(library):
    report = "FINDINGS: Large right pneumothorax.\nIMPRESSION: No pneumothorax."
    [detection] = judge(ctx(report, library))
    assert detection.detector == "judge" and detection.suggestion is None
    assert set(detection.evidence) == {"rule", "related_sentence", "detail"}
    assert detection.evidence["rule"] == "impression_vs_findings"
    assert detection.prompt_version is None and 0 < detection.confidence <= 1


def test_a_denial_of_what_its_own_words_describe_as_present():
    from workers.rules.checks import self_denials

    report = "FINDINGS: No stable mild cardiomegaly. Stable granuloma without pleural effusion."
    [issue] = self_denials(ctx(report))
    assert (issue.rule, issue.sentence) == ("contradiction", 0)
    assert "stable mild" in issue.explanation
    assert self_denials(ctx("FINDINGS: No large pleural effusion. No acute fracture.")) == []
    assert self_denials(ctx("FINDINGS: No effusion and mild cardiomegaly.")) == []


def test_the_rest_of_the_report_decides_which_side_of_a_contradiction_is_flagged():
    report = ("FINDINGS: No pulmonary hypoinflation. Low lung volumes.\n"
              "IMPRESSION: Pulmonary hypoinflation.")
    issues = contradictions(ctx(report))
    # sentence 0 against 1 and against 2; "low lung volumes" sides with the impression
    assert {(i.sentence, i.related) for i in issues} == {(0, 1), (0, 2)}


def test_a_normal_summary_denies_only_acute_findings_and_is_never_the_suspect():
    loose = "FINDINGS: The lungs are clear. Mild left basilar atelectasis.\nIMPRESSION: Normal."
    assert contradictions(ctx(loose)) == []
    acute = "FINDINGS: The lungs are clear. Right lower lobe consolidation."
    [issue] = contradictions(ctx(acute))
    assert (issue.sentence, issue.related) == (1, 0)
    healed = "FINDINGS: No acute fracture. Healed left rib fracture."
    assert contradictions(ctx(healed)) == []


@pytest.mark.parametrize("report", [
    # the remainder of the lungs: the summary leaves room for the finding
    "FINDINGS: Right lower lobe consolidation. The remainder of the lungs appear clear.",
    # a denial of other findings, or of a redacted word standing for "other"
    "FINDINGS: Left basilar consolidation. No other focal consolidation.",
    "FINDINGS: Left basilar consolidation. No XXXX focal consolidation or pneumothorax.",
    # "no focal airspace disease" does not deny a patchy opacity
    "FINDINGS: Patchy opacity at the right base. No focal airspace disease.",
])
def test_denials_that_leave_room_for_the_named_finding(report):
    assert contradictions(ctx(report)) == []


def test_a_plain_or_focal_denial_still_contradicts_a_finding():
    [issue] = contradictions(ctx("FINDINGS: Left basilar consolidation. No focal consolidation."))
    assert {issue.sentence, issue.related} == {0, 1}
    redacted_word_elsewhere = ("FINDINGS: Blunted right costophrenic XXXX with pleural effusion. "
                               "Mildly blunted right costophrenic XXXX without pleural effusion.")
    assert len(contradictions(ctx(redacted_word_elsewhere))) == 1


def test_advice_to_the_clinician_is_not_a_film_finding(library):
    report = "FINDINGS: The lungs are clear.\nIMPRESSION: Correlate for chest wall pain."
    assert out_of_domain(ctx(report, library)) == []


def test_a_denial_that_concedes_persistence():
    from workers.rules.checks import conceded_denials

    [issue] = conceded_denials(ctx("FINDINGS: Heart is not enlarged but unchanged."))
    assert (issue.rule, issue.sentence) == ("contradiction", 0)
    assert "but unchanged" in issue.explanation and "not enlarged" in issue.explanation
    # an abnormality conceded, a "but" that names another finding, a denial that compares
    for sound in ("FINDINGS: Heart is enlarged but unchanged.",
                  "FINDINGS: No pneumothorax, but stable small left pleural effusion.",
                  "FINDINGS: No new opacity but otherwise unchanged."):
        assert conceded_denials(ctx(sound)) == []


def test_an_affirmed_unnamed_acute_abnormality():
    from workers.rules.checks import unnamed_acute

    [issue] = unnamed_acute(ctx("FINDINGS: Emphysema with acute disease."))
    assert issue.rule == "contradiction" and issue.term == "acute disease"
    assert unnamed_acute(ctx("FINDINGS: Emphysema without acute disease.")) == []
    assert unnamed_acute(ctx("IMPRESSION: No acute cardiopulmonary process.")) == []
    assert unnamed_acute(ctx("IMPRESSION: Evaluate for acute process.")) == []


def test_a_normal_statement_and_a_broader_finding_in_one_sentence():
    [issue] = contradictions(ctx("FINDINGS: Lungs are clear with focal air space disease."))
    assert (issue.rule, issue.sentence) == ("contradiction", 0)


def test_a_short_denial_of_words_no_library_report_uses(library):
    issues = unsupported_by_library(ctx("FINDINGS: Heart size is normal. No anemia.", library))
    assert [(i.sentence, i.term) for i in issues] == [(1, "anemia")]
    summary = ctx("FINDINGS: Heart size is normal. No acute cardiothoracic process.", library)
    assert unsupported_by_library(summary) == []


@pytest.mark.parametrize("sentence", [
    "No large pneumothorax is detected.",        # a report verb the library never writes
    "No pneumothorax is clearly identified.",
])
def test_radiology_words_new_to_the_library_are_no_unknown_terms(library, sentence):
    report = ctx(f"FINDINGS: Heart size is normal. {sentence}", library)
    assert report.suspect_terms(1) == []
    assert unsupported_by_library(report) == []


def test_a_word_the_report_was_cut_off_in_is_no_unknown_term(library):
    report = ctx("FINDINGS: Heart size is normal. No pneumothor", library)
    assert report.parsed.cut_off
    assert report.suspect_terms(1) == [] and unsupported_by_library(report) == []


@pytest.mark.parametrize("sentence", [
    "NG tube ends in the mid-gastric cavity.", "Esophageal drainage tube ends in the pylorus.",
    "The enteric tube courses along the esophagus into the stomach."])
def test_organs_that_place_a_device_are_no_condition(library, sentence):
    assert out_of_domain(ctx(f"FINDINGS: Heart size is normal. {sentence}", library)) == []


def _library_naming(term, times):
    history = [(f"hist-{n}", f"FINDINGS: Heart size is normal. Effusion from the known {term}."
                            "\nIMPRESSION: No acute cardiopulmonary abnormality.")
               for n in range(times)]
    return make_library(REFERENCE_REPORTS + history)


def test_a_condition_the_library_names_once_or_twice_is_no_habit_of_reports():
    report = "FINDINGS: Heart size is normal. There continues to be pancreatitis."
    [rarely] = out_of_domain(ctx(report, _library_naming("pancreatitis", 1)))
    [often] = out_of_domain(ctx(report, _library_naming("pancreatitis", 3)))
    assert rarely.confidence == 0.7 and "only 1 library sentence" in rarely.explanation
    assert often.confidence == 0.45


def test_a_library_that_names_the_organ_does_not_name_the_disease():
    library = make_library(REFERENCE_REPORTS + [
        (f"bowel-{n}", "FINDINGS: Normal bowel gas pattern. Heart size is normal.")
        for n in range(4)])
    [issue] = out_of_domain(ctx("FINDINGS: Heart size is normal. There is moderate "
                                "inflammatory bowel disease, with a prominent left hilum.",
                                library))
    assert issue.confidence == 0.85 and "no library report names it" in issue.explanation


def test_a_wording_the_library_lacks_weighs_less_when_it_states_the_finding_that_way():
    # the library writes "Negative for cardiac enlargement." and never "Cardiac enlargement.";
    # with many other reports that state cardiomegaly in other words, that is a habit of
    # wording, not a sign that the sentence lost its denial
    denials = [(f"neg-{n}", "FINDINGS: Negative for cardiac enlargement. No pneumothorax.")
               for n in range(3)]
    states = [(f"pos-{n}", "FINDINGS: Cardiomegaly is present. No pneumothorax.")
              for n in range(12)]
    text = "FINDINGS: No pneumothorax. Cardiac enlargement."
    [alone] = unsupported_by_library(ctx(text, make_library(denials)))
    [usual] = unsupported_by_library(ctx(text, make_library(denials + states)))
    assert alone.sentence == usual.sentence == 1
    assert usual.confidence == pytest.approx(alone.confidence / 2, abs=0.002)


@pytest.mark.parametrize("text", [
    "Severe left middle and lower lobe atelectasis has not improved.",
    "Right retrocardiac consolidation unchanged, likely atelectasis.",
    "Opacity in the right lingula.",
    "Fluid tracks along the left minor fissure.",
])
def test_a_side_the_chest_does_not_have_is_a_laterality_issue(text):
    [issue] = [i for i in run_checks(ctx("FINDINGS: Heart size is normal. " + text))
               if i.rule == "laterality"]
    assert issue.sentence == 1 and issue.related is None
    assert "does not have" in issue.explanation


@pytest.mark.parametrize("text", [
    "Severe right middle and lower lobe atelectasis has not improved.",
    "Retrocardiac consolidation, likely atelectasis.",
    "Opacity in the lingula and the right middle lobe.",
    "Left mid lung opacity.",
    "Left lower lobe and right middle lobe opacities.",
])
def test_sides_the_chest_has_are_not(text):
    assert [i for i in run_checks(ctx("FINDINGS: " + text)) if i.rule == "laterality"] == []


def test_the_fix_swaps_the_side():
    result = correct(ctx("FINDINGS: Heart size is normal. Severe left middle and lower lobe "
                         "atelectasis has not improved."))
    assert result.has_error and result.sentence_index == 1
    assert result.suggestion == "Severe right middle and lower lobe atelectasis has not improved."


def test_an_impression_that_denies_outright_what_the_findings_raise_is_doubted():
    report = ("FINDINGS: Linear lucency along the right heart border may represent a basilar "
              "pneumothorax. Heart size is normal.\nIMPRESSION: No basilar right pneumothorax.")
    [issue] = [i for i in run_checks(ctx(report)) if i.rule == "impression_vs_findings"]
    assert issue.sentence == 2 and issue.related == 0
    assert "raises it as possible" in issue.explanation


@pytest.mark.parametrize("impression", [
    "No definite pneumothorax.",
    "No new pneumothorax.",
    "No left pneumothorax.",
    "No pleural effusion.",
])
def test_a_denial_that_says_how_or_of_something_else_is_not(impression):
    report = ("FINDINGS: Linear lucency along the right heart border may represent a basilar "
              "pneumothorax.\nIMPRESSION: " + impression)
    assert [i for i in run_checks(ctx(report)) if i.rule == "impression_vs_findings"] == []
