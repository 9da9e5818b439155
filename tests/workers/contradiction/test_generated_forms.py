"""Issue 31, round 5: surface forms the generated pairs (bench/consistency_stress.py) showed the
statement reader missing; for each, a pair that flags with its explanation and a look-alike
that must not flag."""
from __future__ import annotations

import pytest

from workers.contradiction import detections, find_contradictions
from workers.study.context import StudyContext


def pair(text: str):
    (c,) = find_contradictions(StudyContext(text))
    return c


def flagged(text: str) -> dict[int, object]:
    return {d.sentence_index: d for d in detections(StudyContext(text))}


@pytest.mark.parametrize("finding", [
    "Redemonstrated consolidation in the left lower lobe.",
    "Right lower lobe airspace disease is again seen.",
    "Persistent left basilar consolidation.",
])
def test_a_finding_seen_again_makes_the_lungs_not_clear(finding):
    # "clear lungs" is no claim about acuity: a consolidation still there contradicts it
    text = f"FINDINGS: {finding} No pleural effusion.\nIMPRESSION: The lungs are clear."
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 2), 2)
    found = flagged(text)
    assert found[2].explanation.startswith(f"Contradicts sentence 1, \u201c{finding}\u201d")
    assert "This sentence is the one doubted" in found[2].explanation
    assert found[0].suggestion is None


@pytest.mark.parametrize("text", [
    "FINDINGS: Redemonstrated right upper lobe mass.\nIMPRESSION: No acute cardiopulmonary "
    "process.",
    "FINDINGS: Stable small left pleural effusion.\nIMPRESSION: No acute cardiopulmonary "
    "abnormality.",
    "FINDINGS: Right apical scarring is again seen.\nIMPRESSION: The lungs are clear.",
])
def test_a_known_finding_beside_no_acute_process_or_a_scar_beside_clear_lungs(text):
    assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("first, second", [
    ("Small right pleural effusion, not present on the prior exam.",
     "Right pleural effusion is again seen."),
    ("Left pneumothorax has increased.", "No significant interval change in left pneumothorax."),
    ("Left pneumothorax without significant change.", "Decreasing left pneumothorax."),
    ("New left basilar opacity.", "Left basilar opacity is still present."),
])
def test_temporal_words_in_a_phrase_of_their_own(first, second):
    text = f"FINDINGS: {first} No acute osseous abnormality.\nIMPRESSION: {second}"
    c = pair(text)
    assert (c.kind, c.sentences) == ("temporal", (0, 2))
    found = flagged(text)
    assert found[2].explanation.startswith(f"Contradicts sentence 1, \u201c{first}\u201d")
    assert found[0].suggestion is None and found[2].suggestion is None


@pytest.mark.parametrize("first, second", [
    ("Small right pleural effusion, not present on the prior exam.", "New right pleural "
                                                                     "effusion."),
    ("No significant interval change in left pneumothorax.", "Stable left pneumothorax."),
    ("Left basilar opacity is still present.", "Persistent left basilar opacity."),
])
def test_the_same_change_said_two_ways_is_no_contradiction(first, second):
    assert find_contradictions(StudyContext(f"FINDINGS: {first}\nIMPRESSION: {second}")) == []


@pytest.mark.parametrize(("finding", "normal"), [
    ("Moderate right pleural effusion.", "The costophrenic angles are sharp."),
    ("3 cm spiculated mass in the left upper lobe.", "No discrete pulmonary lesion."),
])
def test_normal_statements_in_other_words(finding, normal):
    text = f"FINDINGS: {finding}\nIMPRESSION: {normal}"
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    assert flagged(text)[1].explanation.startswith(f"Contradicts sentence 1, \u201c{finding}\u201d")


def test_sharp_angles_beside_pleural_thickening_or_an_otherwise_sharp_angle():
    for text in ("FINDINGS: Apical pleural thickening. The costophrenic angles are sharp.",
                 "FINDINGS: Blunting of the left costophrenic angle. The right costophrenic "
                 "angle is sharp."):
        assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("first, second", [
    ("There is no interval change in the right pneumothorax.", "Increasing right pneumothorax."),
    ("The left pleural effusion is similar in size to the prior exam.",
     "There is a left pleural effusion which was not seen previously."),
    ("The right pleural effusion is less prominent than previously.",
     "Compared to the prior study, the right pleural effusion is unchanged."),
    ("The left lower lobe consolidation is more prominent than previously.",
     "Improving left lower lobe consolidation."),
])
def test_changes_said_inside_longer_clauses(first, second):
    text = f"FINDINGS: {first}\nIMPRESSION: {second}"
    c = pair(text)
    assert (c.kind, c.sentences) == ("temporal", (0, 1))
    assert flagged(text)[1].explanation.startswith(f"Contradicts sentence 1, \u201c{first}\u201d")


def test_no_interval_change_keeps_the_finding_and_one_side_smaller_is_no_change():
    for text in ("FINDINGS: There is no interval change in the right pneumothorax.\n"
                 "IMPRESSION: Stable right pneumothorax.",
                 "FINDINGS: Bilateral effusions, the left smaller than the right.\n"
                 "IMPRESSION: Unchanged bilateral effusions."):
        assert find_contradictions(StudyContext(text)) == []


@pytest.mark.parametrize("many", [
    "Bilateral pulmonary nodules are noted.", "Pulmonary nodules, two in number.",
    "Nodules in both lungs.",
])
def test_a_count_said_as_a_predicate_or_in_a_phrase_of_its_own(many):
    text = f"FINDINGS: {many}\nIMPRESSION: The right upper lobe nodule is solitary."
    c = pair(text)
    assert (c.kind, c.sentences) == ("count", (0, 1))
    assert flagged(text)[1].explanation.startswith(f"Contradicts sentence 1, \u201c{many}\u201d")


def test_the_same_count_said_as_a_predicate_is_no_contradiction():
    text = ("FINDINGS: A 9 mm nodule in the right upper lobe.\n"
            "IMPRESSION: The right upper lobe nodule is solitary.")
    assert find_contradictions(StudyContext(text)) == []


def test_a_fracture_called_acute_is_no_old_one():
    text = ("FINDINGS: Acute compression fracture of a midthoracic vertebral body.\n"
            "IMPRESSION: No acute osseous abnormality.")
    c = pair(text)
    assert (c.sentences, c.doubted) == ((0, 1), 1)
    # an old compression deformity beside the same summary stays clean
    assert find_contradictions(StudyContext(
        "FINDINGS: Chronic compression fracture of a midthoracic vertebral body.\n"
        "IMPRESSION: No acute osseous abnormality.")) == []


def test_a_subtle_consolidation_is_no_trace_the_clear_lungs_leave_room_for():
    text = ("FINDINGS: Subtle consolidation in the right upper lobe.\n"
            "IMPRESSION: The lungs are clear.")
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == ("presence", (0, 1), 1)
    # a trace or minimal finding still is one
    for minimal in ("Minimal left basilar atelectasis.", "Subtle trace left pleural effusion."):
        assert find_contradictions(StudyContext(
            f"FINDINGS: {minimal}\nIMPRESSION: No acute cardiopulmonary process.")) == []


@pytest.mark.parametrize(("finding", "denial", "kind"), [
    ("Small left pleural effusion.", "No pneumothorax or pleural effusion.", "presence"),
    ("Right lower lobe consolidation.",
     "There is no pleural effusion, pneumothorax or focal consolidation.", "presence"),
    ("Left upper lobe mass.", "No nodules or masses.", "presence"),
    ("There is a 3 cm spiculated mass in the left upper lobe.",
     "No pleural effusion or focal lung lesion.", "presence"),
])
def test_a_denied_finding_inside_a_list_of_denials(finding, denial, kind):
    # the other items of the list are no words of this denial that narrow it
    text = f"FINDINGS: {finding}\nIMPRESSION: {denial}"
    c = pair(text)
    assert (c.kind, c.sentences, c.doubted) == (kind, (0, 1), 1)
    assert flagged(text)[1].explanation.startswith(f"Contradicts sentence 1, \u201c{finding}\u201d")


@pytest.mark.parametrize(("finding", "denial"), [
    ("Nondisplaced right rib fracture.", "No displaced or angulated fracture."),
    ("Small left pleural effusion.", "No new effusion or pneumothorax."),
    ("Small left pleural effusion.", "No right effusion or pneumothorax."),
])
def test_a_list_that_narrows_its_own_item_still_narrows(finding, denial):
    text = f"FINDINGS: {finding}\nIMPRESSION: {denial}"
    assert find_contradictions(StudyContext(text)) == []

