"""The statement model (workers/nlp/statements.py): one statement per finding mentioned and per
normal statement, each with the attributes the comparing checks read."""
from __future__ import annotations

import pytest

from workers.nlp.sections import parse_report
from workers.nlp.statements import (
    AIRSPACE_OPACITY,
    BETTER,
    GONE,
    MANY,
    NEW,
    OLD,
    PERSISTS,
    UNCHANGED,
    WORSE,
    compares,
    denies_comparison,
    statements,
)


def one(text: str, concept: str | None = None):
    found = [s for s in statements(text) if concept is None or s.concept == concept]
    assert len(found) == 1, found
    return found[0]


def test_a_normal_statement_is_one_summary_statement():
    (s,) = statements("The lungs are clear.")
    assert s.summary and s.concept == "clear lungs" and s.status == "absent"
    (g,) = statements("IMPRESSION: No acute cardiopulmonary process.")
    assert g.concept == "no acute cardiopulmonary abnormality"
    assert one("Normal chest.").concept == "no acute abnormality"
    # "well aerated" speaks of the lungs' volume, not of their being clear
    assert one("The lungs are well aerated.").concept == "normal lung volumes"
    # "AP chest" names the film
    assert all(s.concept == "normal heart size" for s in
               statements("AP chest compared to ___: Heart size normal."))


@pytest.mark.parametrize("text, grade", [
    ("Mild left basilar atelectasis.", (1, 1)),
    ("There is complete collapse of the left lower lobe.", (3, 3)),
    ("Small to moderate right pleural effusion.", (1, 2)),
    ("Patchy opacity in the right lower lobe.", (1, 1)),
    ("Dense consolidation of the entire right lower lobe.", (3, 3)),
])
def test_grades_on_one_scale(text, grade):
    assert statements(text)[0].grade == grade


@pytest.mark.parametrize("text, size", [
    ("A 1.0 cm nodule is present in the right lower lobe.", 10.0),
    ("There are two nodules in the right upper lobe, measuring 8 mm and 11 mm.", 11.0),
    ("1.5 x 2.2 cm mass in the left upper lobe.", 22.0),
    # a distance is no size
    ("Endotracheal tube tip is 5 cm above the carina.", None),
])
def test_measured_sizes(text, size):
    assert statements(text)[0].size_mm == size


@pytest.mark.parametrize("text, count, said", [
    ("There are two nodules in the right upper lobe.", 2, True),
    ("Solitary right upper lobe nodule.", 1, True),
    ("Multiple bilateral pulmonary nodules.", MANY, True),
    ("There are 3 nodules in the right lung.", 3, True),
    ("Right upper lobe nodules.", MANY, False),
    ("A 9 mm nodule in the right upper lobe.", 1, False),
    ("Acute fractures of the right fourth, fifth, and sixth ribs.", 3, True),
    ("Single acute right rib fracture.", 1, True),
    ("3.0 cm right lower lobe mass.", 1, False),
])
def test_counts(text, count, said):
    s = statements(text)[0]
    assert (s.count, s.count_said) == (count, said)


@pytest.mark.parametrize("text, change", [
    ("There is a new right lower lobe opacity, not present on the prior examination.", NEW),
    ("Unchanged RLL opacity.", UNCHANGED),
    ("Stable mild cardiomegaly.", UNCHANGED),
    ("Right upper extremity PICC is again seen.", PERSISTS),
    ("Improving right middle lobe consolidation.", BETTER),
    ("Improving but persistent right middle lobe consolidation.", PERSISTS),
    ("Mild pulmonary edema, worse than on the prior study.", WORSE),
    ("The left apical pneumothorax has resolved.", GONE),
    ("Interval removal of the nasogastric tube.", GONE),
    ("Small right pleural effusion, unchanged.", UNCHANGED),
])
def test_temporal_change(text, change):
    assert statements(text)[0].temporal == change


@pytest.mark.parametrize("text, change", [
    ("Interval development of a small left pleural effusion.", NEW),
    ("Nearly resolved left pleural effusion.", BETTER),
    ("There has been interval near resolution of a large right pleural effusion.", BETTER),
    ("Slightly larger right pleural effusion since ___.", WORSE),
    ("Old healed right rib fractures.", OLD),
    # "appearance of" is how something looks
    ("Appearance of chronic obstructive pulmonary disease.", OLD),
])
def test_changes_the_engines_cue_does_not_name(text, change):
    assert statements(text)[0].temporal == change


def test_a_whole_lobe_collapsed_and_a_pleural_abnormality_denied():
    assert one("There is complete collapse of the left lower lobe.").concept == "lobar collapse"
    (s,) = statements("No pleural abnormality.")
    assert s.summary and s.concept == "clear pleural spaces"


def test_a_finding_said_not_to_be_on_the_prior_is_new_not_denied():
    s = one("There is a new right lower lobe opacity, not present on the prior examination.")
    assert s.status == "present" and s.temporal == NEW


def test_increased_is_a_change_only_in_a_report_that_compares():
    comparing = "COMPARISON: 2025-01-03.\nFINDINGS: Increased left pleural effusion."
    assert one(comparing).temporal == WORSE
    assert one("FINDINGS: Increased left pleural effusion.").temporal is None
    # "increased interstitial markings" describes, even then
    assert one("COMPARISON: 2025-01-03.\nFINDINGS: Increased interstitial markings.").temporal \
        is None


def test_gone_is_absent_now():
    s = one("Resolved left pleural effusion.")
    assert s.temporal == GONE and s.now == "absent" and not s.positive


@pytest.mark.parametrize("text, place, position", [
    ("The ETT tip is at the level of the carina.", "carina", "wrong"),
    ("Endotracheal tube tip is 5 cm above the carina.", "trachea", "expected"),
    ("Endotracheal tube tip is 1 cm above the carina.", "trachea", "wrong"),
    ("ETT in standard position.", None, "standard"),
    ("NGT in the stomach.", "stomach", "expected"),
    ("The nasogastric tube is coiled in the upper esophagus.", "esophagus", "wrong"),
    ("The enteric tube is coiled in the stomach.", "stomach", "expected"),
    ("Left chest tube with the side hole outside the pleural space.", "chest wall", "wrong"),
    ("Swan-Ganz catheter tip in the main pulmonary artery.", "main pulmonary artery", None),
    ("Right IJ catheter with its tip in the right atrium.", "right atrium", None),
])
def test_device_positions(text, place, position):
    s = statements(text)[0]
    assert s.device and (s.place, s.position) == (place, position)


def test_a_lines_side_is_its_own_not_its_tips():
    s = one("Left PICC with the tip in the right atrium.")
    assert s.laterality == "left" and s.kinds == {"picc"}


def test_places_on_one_side_give_the_side():
    assert one("Patchy opacity in the lingula.").laterality == "left"
    assert one("Right middle lobe consolidation.").laterality == "right"


def test_airspace_opacity_is_the_unexplained_opacity_of_the_airspaces():
    assert one("Diffuse bilateral airspace opacities.").concept == AIRSPACE_OPACITY
    assert one("Right lower lobe opacity.").concept == AIRSPACE_OPACITY
    assert one("Linear opacity at the left base.").concept == "opacity"
    assert one("Streaky opacity likely atelectasis.", "opacity").concept == "opacity"
    assert one("Opacity related to overlying soft tissue.").concept == "opacity"


def test_commitment():
    assert not one("Possible right lower lobe pneumonia.").committed
    assert not one("History of right pneumothorax.").committed
    prior = one("The previously described right upper lobe nodule has resolved.")
    assert prior.told and prior.temporal == GONE


@pytest.mark.parametrize("text, section, words", [
    ("None.", "comparison", "None."),
    ("None available.", "comparison", "None available."),
    ("No prior studies available.", "comparison", "prior studies"),
    ("7 mm nodule; without prior imaging, its chronicity cannot be determined.", "impression",
     "prior imaging"),
    ("2025-01-10.", "comparison", None),
    ("Chest radiograph ___.", "comparison", None),
    ("No change from the prior study.", "impression", None),
])
def test_a_sentence_that_denies_a_comparison(text, section, words):
    assert denies_comparison(text, section) == words


def test_whether_a_report_compares():
    assert compares(parse_report("COMPARISON: ___\nFINDINGS: Stable cardiomegaly."))
    assert not compares(parse_report("COMPARISON: None.\nFINDINGS: Mild cardiomegaly."))
    assert not compares(parse_report("FINDINGS: Mild cardiomegaly."))


def test_a_doubt_about_another_finding_leaves_this_one_committed():
    mass, malignancy = statements("Spiculated mass in the left upper lobe, suspicious for "
                                  "malignancy.")
    assert mass.committed and not malignancy.committed
    assert not one("Findings likely represent a small left pleural effusion.").committed
    # a doubt before the mention reaches it, whatever the engine's cue says
    opacity, pneumonia = statements("There is focal air space opacity to suggest a pneumonia.")
    assert not pneumonia.committed
