"""Negation and uncertainty: every cue family of workers/nlp/context.py on real wording."""
import pytest

from workers.nlp.context import HISTORICAL, RULES_FILE, _verdicts, load_rules, rule_conflicts
from workers.nlp.findings import extract_findings


def status_of(text, observation):
    statuses = [f.status for f in extract_findings(text)
                if f.observation == observation and not f.implied]
    assert statuses, f"{observation} not found in {text!r}"
    return statuses[0]


@pytest.mark.parametrize("text, observation, status", [
    # plain affirmation
    ("There is a small left pleural effusion.", "pleural effusion", "present"),
    ("Cardiomegaly.", "cardiomegaly", "present"),
    # forward negation cues
    ("No pneumothorax.", "pneumothorax", "absent"),
    ("There is no pleural effusion.", "pleural effusion", "absent"),
    ("Lungs are clear without focal consolidation.", "consolidation", "absent"),
    ("Negative for pneumothorax.", "pneumothorax", "absent"),
    ("No evidence of pneumonia.", "pneumonia", "absent"),
    ("No radiographic evidence of edema.", "edema", "absent"),
    ("Free of effusion.", "pleural effusion", "absent"),
    ("Absence of pneumothorax.", "pneumothorax", "absent"),
    ("Interval resolution of the left effusion.", "pleural effusion", "absent"),
    ("Interval removal of the chest tube.", "chest tube", "absent"),
    ("There is not a pneumothorax.", "pneumothorax", "absent"),
    ("Does not appear to be a hydropneumothorax or empyema.", "hydropneumothorax", "absent"),
    ("The right upper lobe nodule is not well-seen today.", "nodule", "absent"),
    ("Cleared left lower lobe pneumonia.", "pneumonia", "absent"),
    ("Interval clearing of the right basilar effusion.", "pleural effusion", "absent"),
    ("Neither effusion nor pneumothorax.", "pneumothorax", "absent"),
    # backward negation cues
    ("Pneumothorax is not seen.", "pneumothorax", "absent"),
    ("A pleural effusion is not identified.", "pleural effusion", "absent"),
    ("Focal consolidation is not visualized.", "consolidation", "absent"),
    ("The left effusion has resolved.", "pleural effusion", "absent"),
    ("The previously seen left upper lobe nodule is no longer visible.", "nodule", "absent"),
    ("The effusion is no longer apparent.", "pleural effusion", "absent"),
    ("Pneumothorax is no longer demonstrated.", "pneumothorax", "absent"),
    # "resolved" before the finding, near it; a partial resolution leaves it there
    ("1. Resolved right pleural effusion.", "pleural effusion", "absent"),
    ("Resolved left lower lobe atelectasis.", "atelectasis", "absent"),
    ("Resolved right pneumothorax with the chest tube in place.", "chest tube", "present"),
    ("The right pleural effusion seen on the prior study has since resolved.",
     "pleural effusion", "absent"),
    ("The left effusion has nearly resolved.", "pleural effusion", "present"),
    ("Near-resolved left lower lobe opacity.", "opacity", "present"),
    ("The effusion has not resolved.", "pleural effusion", "present"),
    ("The endotracheal tube has been removed.", "endotracheal tube", "absent"),
    ("Pneumothorax: none.", "pneumothorax", "absent"),
    ("Pulmonary vascular engorgement appears within normal limits.", "edema", "absent"),
    # negation scope across a list
    ("No focal consolidation, pleural effusion, or pneumothorax.", "consolidation", "absent"),
    ("No focal consolidation, pleural effusion, or pneumothorax.", "pleural effusion", "absent"),
    ("No focal consolidation, pleural effusion, or pneumothorax.", "pneumothorax", "absent"),
    ("The lungs are clear without evidence of focal airspace disease, pleural effusion, or "
     "pneumothorax.", "pneumothorax", "absent"),
    # scope ends: terminators and affirmations of another finding
    ("No pleural effusion, but there is a small pneumothorax.", "pneumothorax", "present"),
    ("No effusion; small right pneumothorax.", "pneumothorax", "present"),
    ("No pneumothorax is seen and there is mild cardiomegaly.", "cardiomegaly", "present"),
    ("No pneumothorax, possible small effusion.", "pleural effusion", "uncertain"),
    ("No pneumothorax, possible small effusion.", "pneumothorax", "absent"),
    # a denial outranks a history wherever it stands
    ("No history of pneumothorax.", "pneumothorax", "absent"),
    ("Repeat film fails to demonstrate the previously described nodule.", "nodule", "absent"),
    ("History of pneumothorax.", "pneumothorax", "uncertain"),
    # pseudo-negations are no negation
    ("No change in the moderate cardiomegaly.", "cardiomegaly", "present"),
    ("Mild atelectasis without significant interval change.", "atelectasis", "present"),
    ("Right lower lobe nodule, not well seen on the prior exam.", "nodule", "present"),
    ("Left pleural effusion, not as well seen on the prior study.", "pleural effusion",
     "present"),
    ("Small nodule, not appreciated on the prior exam.", "nodule", "present"),
    ("No focal opacity to suggest pneumonia.", "pneumonia", "absent"),
    # a device whose tip is not seen is there; a device not seen is not
    ("A nasogastric tube courses below the diaphragm with the tip not identified.",
     "enteric tube", "present"),
    ("Enteric tube passes below the diaphragm, tip not visualized.", "enteric tube", "present"),
    ("Right IJ catheter, the tip is not well seen.", "central venous catheter", "present"),
    # ... and so is a device named as its tip's owner: the tip is what is not seen
    ("The tip of the PICC is not visualized.", "central venous catheter", "present"),
    ("The tip of the right internal jugular catheter cannot be identified.",
     "central venous catheter", "present"),
    ("Tip of the nasogastric tube is not seen on this image.", "enteric tube", "present"),
    ("No nasogastric tube is seen.", "enteric tube", "absent"),
    ("The nasogastric tube is not visualized.", "enteric tube", "absent"),
    # uncertainty, forward and backward
    ("Possible small left pleural effusion.", "pleural effusion", "uncertain"),
    ("Opacity may represent atelectasis.", "atelectasis", "uncertain"),
    ("Findings could reflect early edema.", "edema", "uncertain"),
    ("Questionable right lower lobe nodule.", "nodule", "uncertain"),
    ("Findings concerning for pneumonia.", "pneumonia", "uncertain"),
    ("Suspicious for a mass.", "mass", "uncertain"),
    ("Pneumonia cannot be excluded.", "pneumonia", "uncertain"),
    ("A small effusion can not be ruled out.", "pleural effusion", "uncertain"),
    ("Cannot exclude a small pneumothorax.", "pneumothorax", "uncertain"),
    ("Atelectasis versus pneumonia.", "atelectasis", "uncertain"),
    ("Atelectasis versus pneumonia.", "pneumonia", "uncertain"),
    ("Question small bilateral pleural effusions.", "pleural effusion", "uncertain"),
    ("There is suggestion of minimal atelectasis.", "atelectasis", "uncertain"),
    ("Pneumonia is in the differential.", "pneumonia", "uncertain"),
    ("In the appropriate clinical setting this is compatible with pneumonia.", "pneumonia",
     "uncertain"),
    ("Heart size is at the upper limits of normal.", "cardiomegaly", "uncertain"),
    ("Opacity may be compatible with pneumonia.", "pneumonia", "uncertain"),
    # probability cues read as present (PROBABLE_STATUS)
    ("Opacity, likely atelectasis.", "atelectasis", "present"),
    ("Findings consistent with pulmonary edema.", "edema", "present"),
    ("Infiltrate compatible with pneumonia.", "pneumonia", "present"),
    # clinical questions and recommendations
    ("Evaluate for pneumonia.", "pneumonia", "uncertain"),
    ("Recommend follow-up to exclude an underlying mass.", "mass", "uncertain"),
    ("Correlate clinically for infection.", "pneumonia", "uncertain"),
])
def test_assertion_status(text, observation, status):
    assert status_of(text, observation) == status


def test_no_rule_literal_is_listed_twice():
    assert rule_conflicts() == []


@pytest.mark.parametrize("text, observation", [
    ("Healed right rib fracture should not be mistaken for lung nodules.", "nodule"),
    ("No evidence of pneumothorax, although the sensitivity to detect a pneumothorax is "
     "diminished given supine technique.", "pneumothorax"),
])
def test_a_finding_named_only_as_what_not_to_see_is_not_stated(text, observation):
    statuses = {f.status for f in extract_findings(text)
                if f.observation == observation and not f.implied}
    assert statuses == {"absent"}


def test_rules_are_a_data_file_with_a_source_per_rule(tmp_path):
    rules = load_rules(RULES_FILE)
    assert ("no", "NEGATED_EXISTENCE", "FORWARD", None) in rules
    assert ("history of", HISTORICAL, "FORWARD", None) in rules
    bad = tmp_path / "rules.tsv"
    bad.write_text("literal\tcategory\tdirection\tmax_scope\tsource\nno\tnegated\tforward\t\t\n")
    with pytest.raises(ValueError, match=r"rules.tsv:2: .*source"):
        load_rules(bad)
    bad.write_text("literal\tcategory\n")
    with pytest.raises(ValueError, match=r"rules.tsv:1: header"):
        load_rules(bad)


def test_a_cue_between_sentences_reaches_no_sentence():
    """Header text outside every sentence ("COMPARISONS: None.") negates nothing: the history's
    pneumonia stays stated, as each sentence is read on its own."""
    text = ("FINAL REPORT\nCHEST RADIOGRAPHS\n\nHISTORY: Shortness of breath and right lower "
            "lobe pneumonia.\n\nCOMPARISONS: None.\n\nFINDINGS:\nThere is no pleural effusion.")
    status = {f.observation: f.status for f in extract_findings(text)}
    assert status == {"pneumonia": "present", "pleural effusion": "absent"}


def test_a_sentence_read_once_answers_every_report_that_holds_it():
    """A report and its one-sentence rewrite share the verdicts of their common sentences."""
    _verdicts.cache_clear()
    extract_findings("FINDINGS: No pneumothorax. Small left effusion.")
    read = _verdicts.cache_info().misses
    extract_findings("FINDINGS: No pneumothorax. Small right effusion.")
    assert _verdicts.cache_info().misses == read + 1
