"""Finding extraction: observations, synonyms, attributes, normal statements, spans."""
import pytest

from workers.nlp.findings import extract_findings
from workers.nlp.sections import parse_report
from workers.types import Harm


def explicit(text):
    return [f for f in extract_findings(text) if not f.implied]


def one(text, observation):
    found = [f for f in explicit(text) if f.observation == observation]
    assert found, f"{observation} not in {[f.observation for f in explicit(text)]}"
    return found[0]


@pytest.mark.parametrize("text, observation", [
    ("The heart is enlarged.", "cardiomegaly"),
    ("Heart size is mildly enlarged.", "cardiomegaly"),
    ("Enlarged cardiac silhouette.", "cardiomegaly"),
    ("Widened mediastinum.", "enlarged cardiomediastinum"),
    ("Patchy airspace disease in the lingula.", "opacity"),
    ("Right lower lobe infiltrate.", "opacity"),
    ("Nodular opacity in the right midlung.", "opacity"),
    ("Bibasilar interstitial opacities.", "opacity"),
    ("Left base consolidation.", "consolidation"),
    ("Pulmonary vascular congestion.", "vascular congestion"),
    ("Interstitial edema.", "edema"),
    ("Subsegmental atelectasis.", "atelectasis"),
    ("A 6 mm nodule.", "nodule"),
    ("Right hilar mass.", "mass"),
    ("Small right apical pneumothorax.", "pneumothorax"),
    ("Blunting of the left costophrenic angle.", "costophrenic angle blunting"),
    ("Biapical pleural thickening.", "pleural thickening"),
    ("Pleural-parenchymal scarring.", "pleural thickening"),
    ("Old right rib fractures.", "fracture"),
    ("Left-sided PICC with tip at the cavoatrial junction.", "central venous catheter"),
    ("NG tube in the stomach.", "enteric tube"),
    ("Dual-chamber pacemaker.", "pacemaker"),
    ("Median sternotomy wires.", "sternotomy wires"),
    ("Cholecystectomy clips.", "surgical clips"),
    ("Right chest XXXX tip in the SVC.", "support device"),
    ("Hyperexpanded lungs.", "hyperinflation"),
    ("Emphysematous changes.", "emphysema"),
    ("Calcified granuloma.", "granuloma"),
    ("Degenerative changes of the thoracic spine.", "degenerative change"),
    ("Thoracic dextroscoliosis.", "scoliosis"),
    ("Large hiatal hernia.", "hernia"),
    ("Increased interstitial markings.", "interstitial markings"),
    ("Low lung volumes.", "hypoinflation"),
    ("Tortuous thoracic aorta.", "tortuous aorta"),
    ("Pericardial effusion.", "pericardial effusion"),
    ("Subcutaneous emphysema in the chest wall.", "subcutaneous emphysema"),
    # degrees before the predicate, as real reports write them
    ("The heart remains stably enlarged.", "cardiomegaly"),
    ("The heart is mildly to moderately enlarged.", "cardiomegaly"),
    ("The heart size is at least mildly enlarged.", "cardiomegaly"),
    # a time adverb before the verb, and the noun form of the enlarged silhouette
    ("The heart again appears enlarged despite the projection.", "cardiomegaly"),
    ("Moderate cardiac silhouette enlargement is greater.", "cardiomegaly"),
    ("The heart size remains mild to moderately enlarged.", "cardiomegaly"),
    ("Small collections of pleural air at the right apex.", "pneumothorax"),
    # British spellings
    ("Mild interstitial pulmonary oedema.", "edema"),
    ("Small right haemothorax.", "pleural effusion"),
    ("Left haemopneumothorax.", "hydropneumothorax"),
    ("Large paraoesophageal hernia.", "hernia"),
])
def test_observation_synonyms(text, observation):
    assert one(text, observation).status == "present"


def test_longer_surface_forms_win():
    assert [f.observation for f in explicit("Small pericardial effusion.")] == [
        "pericardial effusion"]
    assert [f.observation for f in explicit("Subcutaneous emphysema.")] == [
        "subcutaneous emphysema"]


@pytest.mark.parametrize("text, laterality", [
    ("Left pleural effusion.", "left"),
    ("Small right-sided effusion.", "right"),
    ("Bilateral pleural effusions.", "bilateral"),
    ("Bibasilar atelectasis.", "bilateral"),
    ("Right greater than left pleural effusions.", "bilateral"),
    ("Pleural effusion.", None),
])
def test_laterality(text, laterality):
    assert explicit(text)[0].laterality == laterality


@pytest.mark.parametrize("text, severity", [
    ("Mild cardiomegaly.", "mild"), ("Moderate cardiomegaly.", "moderate"),
    ("Severe cardiomegaly.", "severe"), ("Small left effusion.", "small"),
    ("Large right effusion.", "large"), ("Trace pleural fluid.", "trace"),
    ("Borderline cardiomegaly.", "borderline"),
    ("Small to moderate pneumothorax.", "small to moderate"),
    ("Heart size is mildly enlarged.", "mild"),
])
def test_severity(text, severity):
    assert explicit(text)[0].severity == severity


@pytest.mark.parametrize("text, location", [
    ("Right upper lobe pneumonia.", "upper lobe"),
    ("Opacity in the right lower lobe.", "lower lobe"),
    ("Right middle lobe infiltrate.", "middle lobe"),
    ("Bibasilar atelectasis.", "base"),
    ("Left apical pneumothorax.", "apex"),
    ("Perihilar opacities.", "perihilar"),
    ("Retrocardiac opacity.", "retrocardiac"),
    ("Left midlung nodule.", "midlung"),
])
def test_location(text, location):
    assert explicit(text)[0].location == location


@pytest.mark.parametrize("text, comparison", [
    ("Stable cardiomegaly.", "stable"),
    ("Pleural thickening, unchanged from prior.", "unchanged"),
    ("Interval improvement in left base consolidation.", "improved"),
    ("Worsening right effusion.", "worsened"),
    ("New right lower lobe opacity.", "new"),
    ("Calcified granuloma again noted.", "again"),
    ("Increased size of the left effusion compared to the prior exam.", "increased"),
    ("Persistent left base atelectasis.", "persistent"),
    ("Increased interstitial markings.", None),
    ("Left pleural effusion.", None),
])
def test_comparison_cue(text, comparison):
    assert explicit(text)[0].comparison == comparison


def test_mediastinal_mass_is_no_lung_lesion():
    f = one("Anterior mediastinal mass.", "mass")
    assert f.location == "mediastinum"
    assert f.labels == ()
    assert one("Right lung base mass.", "mass").labels == ("Lung Lesion",)


@pytest.mark.parametrize("text, absent", [
    ("The lungs are clear.", {"opacity", "consolidation", "edema", "pneumonia", "atelectasis"}),
    ("Clear lungs.", {"opacity", "consolidation"}),
    ("Heart size is normal.", {"cardiomegaly"}),
    ("The heart is normal in size.", {"cardiomegaly"}),
    ("The cardiomediastinal silhouette is within normal limits.",
     {"cardiomegaly", "enlarged cardiomediastinum"}),
    ("No acute cardiopulmonary abnormality.",
     {"opacity", "consolidation", "pneumonia", "edema", "pleural effusion", "pneumothorax"}),
    ("No acute osseous abnormality.", {"fracture"}),
    ("Osseous structures are intact.", {"fracture"}),
    ("Pulmonary vasculature is normal.", {"edema"}),
])
def test_global_normals(text, absent):
    implied = {f.observation for f in extract_findings(text) if f.implied}
    assert absent <= implied
    assert all(f.status == "absent" for f in extract_findings(text) if f.implied)


@pytest.mark.parametrize("text, absent", [
    # a structure that only names a device, a view or the lung volumes is not called normal
    ("Cardiac device overlies the left chest, leads intact.", set()),
    ("Frontal and lateral views of the chest show a normal cardiac silhouette.",
     {"cardiomegaly"}),
    ("Lung volumes within normal limits.", {"hypoinflation", "hyperinflation"}),
    ("Chest tube is in satisfactory position.", set()),
])
def test_normal_words_about_something_else_clear_no_lung(text, absent):
    implied = {f.observation for f in extract_findings(text) if f.implied}
    assert implied == absent


def test_normal_statement_does_not_override_a_stated_finding():
    findings = extract_findings("The lungs are clear except for left base atelectasis.")
    assert [(f.observation, f.status) for f in findings if f.observation == "atelectasis"] == [
        ("atelectasis", "present")]


def test_upper_limits_of_normal_is_not_a_normal_heart():
    findings = extract_findings("Heart size is upper limits of normal.")
    assert [(f.observation, f.status) for f in findings] == [("cardiomegaly", "uncertain")]


def test_lookalike_explains_a_nodule_away():
    f = one("Nodular densities likely nipple shadows.", "opacity")
    assert f.status == "uncertain"


def test_spans_index_the_report_and_sections_are_kept():
    text = "INDICATION: Rule out pneumonia.\nFINDINGS: Small left effusion.\nIMPRESSION: Normal."
    findings = explicit(text)
    effusion = one(text, "pleural effusion")
    assert text[effusion.start:effusion.end] == "effusion"
    assert effusion.section == "findings"
    assert effusion.sentence_index == parse_report(text).sentences[1].index
    pneumonia = one(text, "pneumonia")
    assert pneumonia.section == "indication" and pneumonia.status == "uncertain"
    assert [f.sentence_index for f in findings] == sorted(f.sentence_index for f in findings)


def test_category_and_harm_are_filled():
    f = one("Large right pneumothorax.", "pneumothorax")
    assert f.category == "Pleura"
    assert f.harm == Harm.HIGH
    assert one("Calcified granuloma.", "granuloma").harm == Harm.VERY_LOW


def test_accepts_a_parsed_report_and_caches():
    text = "No pneumothorax."
    assert extract_findings(parse_report(text)) == extract_findings(text)
    assert extract_findings(text) is not extract_findings(text)  # callers get their own list


def test_empty_report_has_no_findings():
    assert extract_findings("") == []


def test_findings_by_sentence_has_every_sentence():
    from workers.nlp.findings import findings_by_sentence

    grouped = findings_by_sentence("PA and lateral views. Small left effusion.")
    assert list(grouped) == [0, 1]
    assert grouped[0] == [] and grouped[1][0].observation == "pleural effusion"


def test_side_only_clause_joins_the_next():
    f = explicit("Moderate right and small left pleural effusions.")[0]
    assert (f.observation, f.laterality) == ("pleural effusion", "bilateral")
    f = explicit("Left lower lobe and lingular atelectasis.")[0]
    assert (f.laterality, f.location) == ("left", "lower lobe")
    effusion, pneumothorax = explicit("Small left effusion, right pneumothorax.")
    assert effusion.laterality == "left" and pneumothorax.laterality == "right"


def test_named_device_absorbs_its_tip():
    findings = explicit("Nasogastric tube courses below the diaphragm with tip in the stomach.")
    assert [f.observation for f in findings] == ["enteric tube"]
    assert explicit("Right IJ central venous catheter in the mid SVC.")[0].location is None
