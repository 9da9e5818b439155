"""Issue 31: statements compared through the hierarchy, one test per kind with the sentence
pair and the explanation each sentence gets; both sentences flagged, neither rewritten when
the text cannot say which is right."""
from __future__ import annotations

import pytest

from workers.contradiction import detections, find_contradictions
from workers.study.context import StudyContext


def pair(text: str):
    (c,) = find_contradictions(StudyContext(text))
    return c


def flagged(text: str) -> dict[int, object]:
    return {d.sentence_index: d for d in detections(StudyContext(text))}


def test_hierarchy_a_mass_is_a_focal_lung_lesion():
    text = ("FINDINGS: There is a 3.2 cm spiculated mass in the right upper lobe. Heart size is "
            "normal.\nIMPRESSION: No focal lung lesion.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    found = flagged(text)
    assert found[2].explanation == (
        "Contradicts sentence 1, \u201cThere is a 3.2 cm spiculated mass in the right upper "
        "lobe.\u201d, on whether lesion is present: this sentence says \u201clung lesion\u201d, "
        "that one \u201cright mass\u201d. This sentence is the one doubted: it is the normal or "
        "summary statement, and a detailed positive finding is never removed to agree with one. "
        "Correct this one if the images show the other.")
    assert found[0].suggestion is None and found[2].suggestion is None


def test_hierarchy_airspace_opacities_make_the_lungs_not_clear():
    text = ("FINDINGS: Diffuse bilateral airspace opacities. No pleural effusion.\n"
            "IMPRESSION: Lungs are clear.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    assert "\u201cLungs are clear.\u201d" in flagged(text)[0].explanation


@pytest.mark.parametrize("finding", ["Right lower lobe airspace disease.",
                                     "Airspace disease in the lingula."])
def test_airspace_disease_stated_against_no_focal_airspace_disease(finding):
    # the presence rule leaves every opacity out (a plain one may be what the denial leaves
    # room for), so the statement model's airspace opacity against its own denial is this rule's
    text = f"FINDINGS: {finding} No pleural effusion.\nIMPRESSION: No focal airspace disease."
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    found = flagged(text)
    assert found[2].explanation.startswith(f"Contradicts sentence 1, \u201c{finding}\u201d")
    assert "This sentence is the one doubted" in found[2].explanation
    assert found[0].suggestion is None and found[2].suggestion is None


@pytest.mark.parametrize("finding", ["Bibasilar opacities, likely atelectasis.",
                                     "Linear opacity at the left base."])
def test_a_plain_opacity_beside_no_focal_airspace_disease(finding):
    text = f"FINDINGS: {finding} No pleural effusion.\nIMPRESSION: No focal airspace disease."
    assert find_contradictions(StudyContext(text)) == []


def test_a_linear_opacity_explained_as_atelectasis_leaves_the_lungs_clear():
    text = ("FINDINGS: Linear opacity at the left base likely atelectasis.\n"
            "IMPRESSION: Lungs are otherwise clear.")
    assert find_contradictions(StudyContext(text)) == []


def test_the_summary_is_paired_with_the_detail_not_with_the_impression_that_agrees():
    text = ("Findings: The lungs are clear. Dense consolidation is present in the right lower "
            "lobe with air bronchograms. The heart is normal in size.\n"
            "Impression: Right lower lobe pneumonia.")
    found = flagged(text)
    assert sorted(found) == [0, 1]


def test_side_the_same_finding_on_different_sides():
    # the example: one opacity read on two sides
    text = ("FINDINGS: Retrocardiac opacity in the left lower lobe, concerning for pneumonia. "
            "Heart size is normal.\nIMPRESSION: Right lower lobe pneumonia.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("side", (0, 2))
    found = flagged(text)
    assert found[2].explanation.startswith(
        "Contradicts sentence 1, \u201cRetrocardiac opacity in the left lower lobe, concerning "
        "for pneumonia.\u201d, on the side of ")
    assert found[0].suggestion is None and found[2].suggestion is None


def test_side_both_sides_against_one():
    text = ("FINDINGS: There are small bilateral pleural effusions.\n"
            "IMPRESSION: Small left pleural effusion.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("side", (0, 1))


def test_side_of_one_nodule_measured_the_same():
    text = ("FINDINGS: A 9 mm nodule projects over the left upper lobe.\n"
            "IMPRESSION: 9 mm right upper lobe nodule.")
    assert pair(text).kind == "side"
    # two nodules of different sizes may be two nodules
    assert find_contradictions(StudyContext(
        "FINDINGS: A 9 mm nodule projects over the left upper lobe.\n"
        "IMPRESSION: 4 mm right upper lobe nodule.")) == []


def test_sides_disagreeing_get_both_readings_and_no_correction():
    # the example: neither the detailed finding nor the impression is rewritten
    text = ("FINDINGS: There is a moderate left pleural effusion.\n"
            "IMPRESSION: Moderate right pleural effusion.")
    found = flagged(text)
    assert sorted(found) == [0, 1]
    readings = found[0].evidence["readings"]
    assert readings == [
        {"choice": "keep", "sentence": 1, "text": "Moderate left pleural effusion.",
         "label": "If this sentence is right, change sentence 2 to"},
        {"choice": "other", "sentence": 0,
         "text": "There is a moderate right pleural effusion.",
         "label": "If sentence 2 is right, change sentence 1 to"}]
    assert found[0].suggestion is None and found[1].suggestion is None
    assert "neither is changed automatically" in found[0].evidence["suggestion_reason"]


def test_severity_complete_collapse_against_mild_atelectasis():
    text = ("FINDINGS: There is complete collapse of the left lower lobe.\n"
            "IMPRESSION: Mild left basilar atelectasis.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("severity", (0, 1))
    assert flagged(text)[1].explanation.startswith(
        "Contradicts sentence 1, \u201cThere is complete collapse of the left lower lobe.\u201d, "
        "on the size of atelectasis: this sentence says \u201cMild left basilar atelectasis\u201d, "
        "that one \u201cThere is complete collapse of the left lower lobe\u201d.")


def test_size_one_lesion_measured_twice():
    text = ("FINDINGS: A 1.0 cm nodule is present in the right lower lobe.\n"
            "IMPRESSION: 3.0 cm right lower lobe mass.")
    assert pair(text).kind == "severity"
    assert find_contradictions(StudyContext(
        "FINDINGS: A 1.0 cm nodule is present in the right lower lobe.\n"
        "IMPRESSION: 1 cm right lower lobe nodule.")) == []


def test_count_one_against_several():
    text = ("FINDINGS: There are two nodules in the right upper lobe, measuring 8 mm and 11 mm.\n"
            "IMPRESSION: Solitary right upper lobe nodule.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("count", (0, 1))
    assert flagged(text)[1].explanation.startswith(
        "Contradicts sentence 1, \u201cThere are two nodules in the right upper lobe, measuring "
        "8 mm and 11 mm.\u201d, on how many there are of nodule")


def test_presence_a_finding_called_likely_against_its_denial():
    text = ("FINDINGS: Patchy airspace opacity in the right lower lobe, concerning for pneumonia."
            "\nIMPRESSION: No evidence of pneumonia.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    found = flagged(text)
    assert found[0].explanation.startswith(
        "Contradicts sentence 2, \u201cNo evidence of pneumonia.\u201d, on whether pneumonia is "
        "present: this sentence says \u201cconcerning for pneumonia\u201d")
    assert found[0].suggestion is None


@pytest.mark.parametrize("text", [
    # a hedge that only leaves it open, a denial that leaves room for a doubt, another side
    "FINDINGS: Bibasilar opacities, pneumonia cannot be excluded.\nIMPRESSION: No definite "
    "pneumonia.",
    "FINDINGS: Right basilar opacity, atelectasis versus pneumonia.\nIMPRESSION: No evidence of "
    "pneumonia.",
    "FINDINGS: Left basilar opacity likely atelectasis.\nIMPRESSION: No definite consolidation.",
    "FINDINGS: Small left pleural effusion is suspected.\nIMPRESSION: No right pleural "
    "effusion.",
    "FINDINGS: Two nodules, concerning for metastatic disease.\nIMPRESSION: No other pulmonary "
    "nodules.",
])
def test_a_doubt_beside_a_denial_that_allows_it(text):
    assert find_contradictions(StudyContext(text)) == []


def test_count_of_chest_tubes():
    text = ("FINDINGS: Two right chest tubes are in place. Lungs are clear.\n"
            "IMPRESSION: Single right chest tube, no pneumothorax.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("count", (0, 2))
    assert flagged(text)[2].suggestion is None


@pytest.mark.parametrize("text", [
    "FINDINGS: A right chest tube is in place.\nIMPRESSION: Right chest tube unchanged.",
    "FINDINGS: Two right chest tubes are in place.\nIMPRESSION: Right chest tubes in place.",
    "FINDINGS: Right chest tube and left chest tube in place.\nIMPRESSION: Bilateral chest "
    "tubes.",
])
def test_chest_tubes_counted_alike(text):
    assert find_contradictions(StudyContext(text)) == []


def test_count_of_broken_ribs():
    text = ("FINDINGS: There are acute fractures of the right fourth, fifth, and sixth ribs.\n"
            "IMPRESSION: Single acute right rib fracture.")
    assert pair(text).kind == "count"


def test_temporal_new_against_resolved():
    # the example
    text = ("FINDINGS: There is a new small right pleural effusion.\n"
            "IMPRESSION: Interval resolution of the right pleural effusion.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("temporal", (0, 1))
    found = flagged(text)
    assert found[0].explanation.startswith(
        "Contradicts sentence 2, \u201cInterval resolution of the right pleural effusion.\u201d, "
        "on how pleural effusion changed since the prior exam")
    assert found[0].suggestion is None and found[1].suggestion is None


@pytest.mark.parametrize("first, second", [
    ("There is a new right lower lobe opacity, not present on the prior examination.",
     "Unchanged RLL opacity."),
    ("Stable mild cardiomegaly.", "New cardiomegaly."),
    ("The right middle lobe consolidation has completely resolved.",
     "Improving but persistent right middle lobe consolidation."),
    ("Decreased left pleural effusion since ___.", "Increased left pleural effusion."),
])
def test_temporal_changes_that_exclude_each_other(first, second):
    assert pair(f"FINDINGS: {first}\nIMPRESSION: {second}").kind == "temporal"


@pytest.mark.parametrize("first, second", [
    ("New small left pleural effusion.", "Stable mild cardiomegaly."),
    ("Persistent right lower lobe opacity, slightly improved.", "Improving right lower lobe "
                                                                "opacity."),
    ("New right pleural effusion.", "Unchanged left pleural effusion."),
])
def test_changes_that_do_not_exclude_each_other(first, second):
    assert find_contradictions(StudyContext(f"FINDINGS: {first} {second}")) == []


def test_temporal_nothing_changed_against_a_new_finding():
    text = ("FINDINGS: Left basilar opacity is new since the prior exam. No pneumothorax.\n"
            "IMPRESSION: No interval change.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("temporal", (0, 2), 2)
    found = flagged(text)
    assert found[2].explanation.startswith(
        "Contradicts sentence 1, \u201cLeft basilar opacity is new since the prior exam.\u201d, "
        "on how opacity changed since the prior exam")
    assert found[0].suggestion is None and found[2].suggestion is None


@pytest.mark.parametrize("first, second", [
    ("There is a new small right pleural effusion.", "No significant interval change from "
                                                     "prior."),
    ("The right pleural effusion has resolved.", "Unchanged from prior exam."),
    ("Worsening bilateral airspace opacities.", "Stable appearance of the chest."),
])
def test_temporal_nothing_changed_against_a_change(first, second):
    assert pair(f"FINDINGS: {first}\nIMPRESSION: {second}").kind == "temporal"


@pytest.mark.parametrize("first, second", [
    # a slight change is no significant one; a finding called stable or denied new is none
    ("Slightly improved left basilar atelectasis.", "No significant interval change."),
    ("Stable cardiomegaly. No new opacity.", "No interval change."),
    # what the sentence excepts, and a sentence about one finding
    ("Interval placement of a right PICC.", "Otherwise no interval change."),
    ("New small right pleural effusion.", "No interval change in the left lung nodule."),
])
def test_nothing_changed_look_alikes(first, second):
    assert find_contradictions(StudyContext(f"FINDINGS: {first}\nIMPRESSION: {second}")) == []


def test_device_out_of_place_against_standard_position():
    text = ("FINDINGS: The ETT tip is at the level of the carina.\n"
            "IMPRESSION: ETT in standard position.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("device", (0, 1))
    assert flagged(text)[1].explanation.startswith(
        "Contradicts sentence 1, \u201cThe ETT tip is at the level of the carina.\u201d, on where "
        "the endotracheal tube is")


@pytest.mark.parametrize("text", [
    "FINDINGS: The pulmonary artery catheter has its tip in a distal right lower lobe "
    "pulmonary artery branch.\nIMPRESSION: Swan-Ganz catheter tip in the main pulmonary artery.",
    # where a tip may stay and where it must be pulled back: places on either side of the line
    "FINDINGS: Right PICC terminates in the right atrium.\nIMPRESSION: Right PICC tip at the "
    "cavoatrial junction.",
    "FINDINGS: Right IJ Swan-Ganz catheter tip in the right main pulmonary artery.\n"
    "IMPRESSION: Swan-Ganz catheter tip in a distal right lower lobe pulmonary artery branch.",
])
def test_device_tip_at_two_places(text):
    assert pair(text).kind == "device"


@pytest.mark.parametrize("text", [
    # two lines of one kind of device, told apart by their kind
    "FINDINGS: Right PICC with the tip in the right atrium. A right internal jugular catheter "
    "has its tip in the proximal SVC.",
    # places that touch
    "FINDINGS: Right IJ line tip in the lower SVC.\nIMPRESSION: Right IJ line tip at the "
    "cavoatrial junction.",
    "FINDINGS: The ETT tip is 4.5 cm above the carina.\nIMPRESSION: ETT in standard position.",
    "FINDINGS: The enteric tube is coiled in the stomach.\nIMPRESSION: Enteric tube in "
    "standard position.",
    # a tip not seen is no device denied
    "FINDINGS: The tip of the PICC is not visualized.\nIMPRESSION: Right PICC line in place.",
    "FINDINGS: The tip of the nasogastric tube is not seen on this image.\nIMPRESSION: "
    "Nasogastric tube courses below the diaphragm.",
])
def test_devices_that_agree(text):
    assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("text, kind", [
    ("FINDINGS: The mediastinum is widened.\nIMPRESSION: The mediastinum is normal.",
     "presence"),
    ("FINDINGS: Small left pleural effusion.\nIMPRESSION: No pleural abnormality.", "presence"),
    ("FINDINGS: There is complete collapse of the left lower lobe.\nIMPRESSION: Lungs are "
     "clear.", "presence"),
    ("FINDINGS: Acute bony abnormality is absent. There is an acute displaced fracture of the "
     "left clavicle.\nIMPRESSION: No acute osseous abnormality.", "global_normal"),
    ("FINDINGS: New fracture of the right sixth rib.\nIMPRESSION: Old healed right sixth rib "
     "fracture.", "temporal"),
    ("FINDINGS: There are two nodules in the left upper lobe.\nIMPRESSION: A left upper lobe "
     "nodule.", "count"),
    ("FINDINGS: New large left pleural effusion.\nIMPRESSION: Small left pleural effusion.",
     "severity"),
    ("Findings: Mild interstitial pulmonary oedema.\nImpression: Severe pulmonary oedema.",
     "severity"),
    ("FINDINGS: Moderate compression deformity of T11.\nIMPRESSION: The osseous structures are "
     "intact.", "presence"),
])
def test_more_wordings_of_each_kind(text, kind):
    assert kind in {c.kind for c in find_contradictions(StudyContext(text))}


@pytest.mark.parametrize("text", [
    "FINDINGS: Mild cardiomegaly.\nIMPRESSION: The mediastinum is normal.",
    "FINDINGS: There is a nodule in the left upper lobe.\nIMPRESSION: Left upper lobe nodules.",
    "FINDINGS: Nearly resolved right pleural effusion.\nIMPRESSION: Trace residual right pleural "
    "effusion.",
    "FINDINGS: Stable mild compression deformity of T8.\nIMPRESSION: Bones are otherwise "
    "unremarkable.",
])
def test_more_look_alikes(text):
    assert find_contradictions(StudyContext(text)) == []


def test_a_doubt_about_the_diagnosis_leaves_the_finding_stated():
    # the hedge is the malignancy's; the mass is there, and the impression denies a lesion
    text = ("FINDINGS: There is a 2.5 cm spiculated mass in the left upper lobe, suspicious for "
            "malignancy.\nIMPRESSION: No focal lung lesion.")
    assert pair(text).kind == "presence"
    # a finding only likely is no side of a pair
    assert find_contradictions(StudyContext(
        "FINDINGS: Findings likely represent a small left pleural effusion.\n"
        "IMPRESSION: No pleural abnormality.")) == []


# ---- wordings of our own (bench/consistency_own.jsonl): each kind the engine newly reads ----

def test_a_denial_in_the_summary_sentence_makes_it_say_more():
    # "without focal consolidation" is no exception that leaves room for a consolidation
    text = ("FINDINGS: Consolidation in the right middle lobe. No effusion.\n"
            "IMPRESSION: Lungs are clear without focal consolidation.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    assert flagged(text)[0].explanation.startswith(
        "Contradicts sentence 3, \u201cLungs are clear without focal consolidation.\u201d, on "
        "whether consolidation is present")
    # an exception that names what is there still leaves room for it
    assert find_contradictions(StudyContext(
        "FINDINGS: Consolidation in the right middle lobe.\n"
        "IMPRESSION: Lungs are clear except for right middle lobe consolidation.")) == []


def test_a_focal_lung_lesion_denied_against_a_lesion_stated():
    text = ("FINDINGS: Right upper lobe cavitary lesion measuring 3 cm.\n"
            "IMPRESSION: No focal lung lesion.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    # "no other nodules" leaves room for the nodules the report names
    assert find_contradictions(StudyContext(
        "FINDINGS: Two nodules are noted in the right lung. No other pulmonary nodules are "
        "identified.")) == []


def test_a_collapsed_lobe_against_no_acute_cardiopulmonary_process():
    text = ("FINDINGS: There is complete collapse of the left lower lobe. Heart size normal.\n"
            "IMPRESSION: No acute cardiopulmonary process.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("global_normal", (0, 2), 2)


def test_an_explained_opacity_leaves_no_acute_process():
    text = ("FINDINGS: Right basilar opacity likely atelectasis. Heart size normal.\n"
            "IMPRESSION: No acute cardiopulmonary process.")
    assert find_contradictions(StudyContext(text)) == []


def test_count_a_range_of_ribs():
    text = ("FINDINGS: Left fourth through sixth rib fractures. No pneumothorax.\n"
            "IMPRESSION: Two left rib fractures.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("count", (0, 2))
    assert flagged(text)[2].explanation.startswith(
        "Contradicts sentence 1, \u201cLeft fourth through sixth rib fractures.\u201d, on how many "
        "there are of fracture")


def test_count_one_sentence_naming_a_finding_at_two_places():
    two = ("FINDINGS: A 6 mm nodule in the right upper lobe and a 9 mm nodule in the left lower "
           "lobe.\nIMPRESSION: {}")
    assert find_contradictions(StudyContext(two.format("Two pulmonary nodules."))) == []
    c = pair(two.format("Solitary pulmonary nodule."))
    assert (c.kind, c.sentences) == ("count", (0, 1))


def test_side_of_a_tube_in_findings_and_impression():
    text = ("FINDINGS: The left chest tube remains in place. No pneumothorax.\n"
            "IMPRESSION: Right chest tube in place.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("side", (0, 2))
    found = flagged(text)
    assert found[2].explanation.startswith(
        "Contradicts sentence 1, \u201cThe left chest tube remains in place.\u201d, on the side "
        "of ")
    assert found[0].suggestion is None and found[2].suggestion is None
    # a tube on each side, each named where it is
    assert find_contradictions(StudyContext(
        "FINDINGS: Left chest tube in place. Right chest tube in place.\n"
        "IMPRESSION: Right chest tube in place.")) == []


def test_a_normal_statement_of_one_side_says_nothing_of_the_other():
    text = ("FINDINGS: Small left pleural effusion with adjacent atelectasis.\n"
            "IMPRESSION: Small left effusion. No acute findings on the right.")
    assert find_contradictions(StudyContext(text)) == []


def test_temporal_gone_against_there_with_no_word_of_change():
    text = ("FINDINGS: Resolved right pleural effusion. No pneumothorax.\n"
            "IMPRESSION: Small right pleural effusion.")
    c = pair(text)
    assert (c.kind, c.sentences) == ("temporal", (0, 2))
    assert flagged(text)[2].explanation.startswith(
        "Contradicts sentence 1, \u201cResolved right pleural effusion.\u201d, on how pleural "
        "effusion changed since the prior exam")
    # a residue, or the other side, is no contradiction
    for other in ("Trace residual right pleural fluid.", "Small left pleural effusion."):
        assert find_contradictions(StudyContext(
            f"FINDINGS: Resolved right pleural effusion.\nIMPRESSION: {other}")) == []


@pytest.mark.parametrize("first, second", [
    ("Since the prior radiograph, the right effusion has grown.", "Decreased right pleural "
                                                                  "effusion."),
    ("Re-demonstration of a right lower lobe opacity.", "New right lower lobe opacity."),
    ("The right pneumothorax has decreased in size.", "Enlarging right pneumothorax."),
    ("The left effusion has slightly increased.", "Slightly smaller left effusion."),
])
def test_temporal_changes_said_by_a_tense_or_a_verb(first, second):
    # no COMPARISON line: the tense or "in size" says the change
    assert pair(f"FINDINGS: {first}\nIMPRESSION: {second}").kind == "temporal"


def test_one_side_against_the_other_is_no_change():
    text = ("FINDINGS: Bilateral pleural effusions, the left smaller than the right.\n"
            "IMPRESSION: Stable bilateral pleural effusions.")
    assert find_contradictions(StudyContext(text)) == []


def test_a_denial_in_words_that_only_name_the_finding():
    # a consolidation fills the airspaces, and one at one place on one side is focal
    text = ("FINDINGS: Left basilar consolidation. No effusion.\n"
            "IMPRESSION: No focal airspace consolidation.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    # spread over both lungs it is no focal consolidation
    assert find_contradictions(StudyContext(
        "FINDINGS: Patchy bibasilar consolidation.\nIMPRESSION: No focal consolidation.")) == []


@pytest.mark.parametrize("finding", ["Enlarged mediastinal lymph nodes.", "Pneumomediastinum."])
def test_the_mediastinum_called_normal_against_what_makes_it_abnormal(finding):
    text = f"FINDINGS: {finding}\nIMPRESSION: The mediastinum is normal."
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)


@pytest.mark.parametrize(("finding", "normal"), [
    ("Widened mediastinum.", "Mediastinal and hilar contours are normal."),
    ("Right lower lobe consolidation.", "The lungs and hila are normal."),
])
def test_a_second_structure_called_normal_is_no_place(finding, normal):
    # "hilar" names the hila, also called normal, not the place the other statement is about
    c = pair(f"FINDINGS: {finding}\nIMPRESSION: {normal}")
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)


def test_the_mediastinum_called_normal_beside_hilar_nodes():
    text = ("FINDINGS: Mild right hilar lymphadenopathy. The mediastinal contours are normal.\n"
            "IMPRESSION: Right hilar lymphadenopathy.")
    assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("normal", ["The hila are unremarkable.", "Normal hilar contours."])
def test_the_hila_called_normal_against_an_enlarged_hilum(normal):
    text = f"FINDINGS: Enlarged right hilum.\nIMPRESSION: {normal}"
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    # nodes of the mediastinum say nothing of the hila
    assert find_contradictions(StudyContext(
        f"FINDINGS: Mediastinal lymphadenopathy.\nIMPRESSION: {normal}")) == []


@pytest.mark.parametrize("first", [
    "A nodule in each lung.",
    "Nodule in the right upper lobe and another in the right lower lobe.",
    "Right lung nodules (2), the largest 8 mm.",
])
def test_count_said_after_the_finding(first):
    text = f"FINDINGS: {first}\nIMPRESSION: Solitary right lung nodule."
    assert pair(text).kind == "count"


def test_another_of_something_else_is_no_second_nodule():
    text = ("FINDINGS: A 5 mm nodule in the right upper lobe with another calcified granuloma.\n"
            "IMPRESSION: Solitary right upper lobe nodule.")
    assert find_contradictions(StudyContext(text)) == []


def test_a_lesion_its_own_sentence_calls_irregular_is_suspicious():
    text = ("FINDINGS: 2 cm irregular mass in the left upper lobe.\n"
            "IMPRESSION: No suspicious pulmonary lesion.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    # a lesion described without a sign of suspicion may be what the denial leaves room for
    assert find_contradictions(StudyContext(
        "FINDINGS: A 1.4 cm nodule in the right middle lobe.\n"
        "IMPRESSION: No suspicious pulmonary lesion.")) == []


@pytest.mark.parametrize("first, second", [
    ("Interval removal of the left chest tube.", "Left chest tube in place."),
    ("Unchanged position of the enteric tube.", "Interval placement of an enteric tube."),
    ("The right-sided pleural effusion has nearly resolved.", "Increasing right pleural "
                                                              "effusion."),
])
def test_temporal_of_tubes_and_of_a_finding_nearly_gone(first, second):
    text = f"FINDINGS: {first}\nIMPRESSION: {second}"
    c = pair(text)
    assert (c.kind, c.sentences) == ("temporal", (0, 1))


def test_a_tube_removed_and_a_new_one_placed_are_two_tubes():
    text = ("FINDINGS: Interval removal of the left chest tube. A new left chest tube has been "
            "placed.\nIMPRESSION: New left chest tube.")
    assert find_contradictions(StudyContext(text)) == []


# Round 4: relations filled from clinical knowledge (the hierarchy file's summary rows), each
# with a pair that must flag and the normal side doubted.
@pytest.mark.parametrize(("text", "kind", "concept"), [
    ("FINDINGS: Pulmonary vascular congestion.\nIMPRESSION: Pulmonary vasculature is normal.",
     "presence", "vascular congestion"),
    ("FINDINGS: Blunting of the left costophrenic angle.\nIMPRESSION: No pleural abnormality.",
     "presence", "costophrenic angle blunting"),
    ("FINDINGS: Subcutaneous emphysema in the left chest wall.\nIMPRESSION: No acute "
     "abnormality.", "global_normal", "the chest is normal"),
    ("FINDINGS: Anterior dislocation of the right humeral head.\nIMPRESSION: No acute "
     "abnormality.", "global_normal", "the chest is normal"),
])
def test_hierarchy_a_normal_statement_against_a_finding_it_rules_out(text, kind, concept):
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == (kind, (0, 1), 1)
    found = flagged(text)
    assert f"on whether {concept}" in found[1].explanation
    assert "This sentence is the one doubted" in found[1].explanation
    assert found[0].suggestion is None


@pytest.mark.parametrize("text", [
    "FINDINGS: Lungs are clear. Calcified granuloma in the right upper lobe.",
    "FINDINGS: The lungs are clear. The lungs are hyperinflated with emphysema.",
    "FINDINGS: Minimal left basilar atelectasis. Lungs are otherwise clear.",
    "FINDINGS: Degenerative changes of the thoracic spine.\nIMPRESSION: No acute osseous "
    "abnormality.",
    "FINDINGS: Old healed right rib fracture.\nIMPRESSION: No acute osseous abnormality.",
    "FINDINGS: Mild cardiomegaly. Tortuous aorta.\nIMPRESSION: No acute cardiopulmonary "
    "process.",
    "FINDINGS: The costophrenic angles are sharp. Apical pleural thickening.",
])
def test_chronic_or_benign_findings_beside_a_normal_statement_are_no_contradiction(text):
    assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("first, second", [
    ("Right pleural effusion has increased.", "Decreased right pleural effusion."),
    ("Worsening bilateral pulmonary edema.", "Decreased bilateral pulmonary edema."),
    ("Improving left lower lobe consolidation.", "Increased left lower lobe consolidation."),
    ("The right pneumothorax is no longer seen.", "Increased right pneumothorax."),
])
def test_a_report_that_states_a_change_compares(first, second):
    # no COMPARISON line and no "prior": the other sentence's change says the report compares,
    # so a bare "increased" or "decreased" is a change, not a description
    assert pair(f"FINDINGS: {first}\nIMPRESSION: {second}").kind == "temporal"


def test_a_degree_word_stays_a_description_in_a_report_that_states_a_change():
    text = ("FINDINGS: Improving right lower lobe consolidation. Increased interstitial "
            "markings, chronic.\nIMPRESSION: Improving right lower lobe pneumonia.")
    assert find_contradictions(StudyContext(text)) == []
