"""Finding categories (RadFlag Appendix C in spirit)."""
import pytest

from workers.nlp.categories import PRIORITY, category_of
from workers.nlp.findings import extract_findings


@pytest.mark.parametrize("sentence, category", [
    ("PICC line tip in the SVC.", "Devices"),
    ("Endotracheal tube 4 cm above the carina.", "Devices"),
    ("No pleural effusion or pneumothorax.", "Pleura"),
    ("Small left pleural effusion with adjacent atelectasis.", "Pleura"),
    ("Heart size is normal.", "Cardiomediastinal"),
    ("Mild cardiomegaly.", "Cardiomediastinal"),
    ("Tortuous thoracic aorta.", "Cardiomediastinal"),
    ("Lungs are clear.", "Lungs"),
    ("Right lower lobe pneumonia.", "Lungs"),
    ("Nodule projecting over the right 7th rib.", "Lungs"),
    ("Mild degenerative changes of the spine.", "Musculoskeletal"),
    ("Old healed left rib fractures.", "Musculoskeletal"),
    ("Large hiatal hernia.", "Other"),
    ("PA and lateral views were obtained.", "Other"),
    ("Pacemaker leads in the right atrium and ventricle, small left effusion.", "Devices"),
])
def test_sentence_categories(sentence, category):
    assert category_of(sentence) == category


def test_devices_first_lungs_last():
    assert PRIORITY[0] == "Devices" and PRIORITY[-2] == "Lungs" and PRIORITY[-1] == "Other"


def test_category_of_a_finding():
    finding = extract_findings("Small right pneumothorax.")[0]
    assert category_of(finding) == "Pleura"


def test_sentence_categories_of_a_report():
    from workers.nlp.categories import sentence_categories

    report = "FINDINGS: ET tube in place. Small left effusion. Heart normal.\nIMPRESSION: Normal."
    assert sentence_categories(report) == {0: "Devices", 1: "Pleura", 2: "Cardiomediastinal",
                                           3: "Other"}
