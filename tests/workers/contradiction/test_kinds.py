"""Each kind of contradiction, and which side is doubted."""
from __future__ import annotations

from workers.contradiction import find_contradictions
from workers.study.context import StudyContext

FIVE = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. No "
        "pneumothorax. IMPRESSION: No acute cardiopulmonary process. Mild cardiomegaly.")


def pairs(text: str) -> dict[tuple[int, int], tuple[str, int | None]]:
    """(first, second) sentence → (kind, doubted sentence)."""
    return {c.sentences: (c.kind, c.doubted) for c in find_contradictions(StudyContext(text))}


def test_the_five_sentence_report_has_two_pairs_and_doubts_the_normal_sides():
    assert pairs(FIVE) == {(0, 4): ("heart_size", 0), (1, 3): ("global_normal", 3)}


def test_heart_size_normal_against_an_enlarged_silhouette():
    text = "FINDINGS: The cardiac silhouette is enlarged. IMPRESSION: Normal heart size."
    assert pairs(text) == {(0, 1): ("heart_size", 1)}


def test_no_cardiomegaly_against_cardiomegaly_within_one_section():
    text = "FINDINGS: No cardiomegaly. The lungs are clear. Moderate cardiomegaly."
    assert pairs(text) == {(0, 2): ("heart_size", 0)}


def test_a_heart_at_the_upper_limit_of_normal_is_no_cardiomegaly():
    text = "FINDINGS: Heart size is normal. IMPRESSION: Heart size at the upper limits of normal."
    assert pairs(text) == {}


def test_cardiomegaly_is_not_an_acute_process():
    text = "FINDINGS: Mild cardiomegaly. IMPRESSION: No acute cardiopulmonary process."
    assert pairs(text) == {}


def test_no_acute_process_against_each_acute_finding():
    for finding in ("Small left pleural effusion.", "Right apical pneumothorax.",
                    "Right lower lobe consolidation.", "Moderate pulmonary edema.",
                    "Left lower lobe pneumonia.", "Acute displaced left rib fracture.",
                    "A 3 cm mass in the right upper lobe."):
        text = f"FINDINGS: {finding} IMPRESSION: No acute abnormality."
        assert pairs(text) == {(0, 1): ("global_normal", 1)}, finding


def test_normal_chest_against_a_finding_in_the_same_section():
    text = "IMPRESSION: Normal chest. Large right pleural effusion."
    assert pairs(text) == {(0, 1): ("global_normal", 0)}


def test_presence_against_absence_of_the_same_finding():
    text = "FINDINGS: No pneumothorax. IMPRESSION: Small right pneumothorax."
    assert pairs(text) == {(0, 1): ("presence", 0)}


def test_a_structure_called_normal_against_a_finding_in_it():
    text = "FINDINGS: The pleural spaces are clear. IMPRESSION: Large left pleural effusion."
    assert pairs(text) == {(0, 1): ("presence", 0)}


def test_left_against_right_across_findings_and_impression_doubts_the_impression():
    text = "FINDINGS: Large left pleural effusion. IMPRESSION: Large right pleural effusion."
    assert pairs(text) == {(0, 1): ("side", 1)}


def test_small_against_large_in_one_section_doubts_neither():
    text = "FINDINGS: Small right pneumothorax. The heart is normal. Large right pneumothorax."
    assert pairs(text) == {(0, 2): ("severity", None)}


def test_mild_against_severe_across_sections_doubts_the_impression():
    text = "FINDINGS: Mild pulmonary edema. IMPRESSION: Severe pulmonary edema."
    assert pairs(text) == {(0, 1): ("severity", 1)}


def test_the_pair_takes_the_more_harmful_side():
    (c,) = find_contradictions(StudyContext(
        "FINDINGS: No pneumothorax. IMPRESSION: Small right pneumothorax."))
    assert c.harm.value == "high"
    (c,) = find_contradictions(StudyContext(
        "FINDINGS: Heart size is normal. IMPRESSION: Mild cardiomegaly."))
    assert c.harm.value == "low"
