"""CheXpert-14 label conventions."""
from workers.nlp.findings import extract_findings
from workers.nlp.labels import LABELS, chexpert_labels


def labels(text, **kwargs):
    return chexpert_labels(extract_findings(text), **kwargs)


def test_exact_label_names_in_chexpert_order():
    assert list(labels("Normal.")) == list(LABELS) == [
        "No Finding", "Enlarged Cardiomediastinum", "Cardiomegaly", "Lung Opacity",
        "Lung Lesion", "Edema", "Consolidation", "Pneumonia", "Atelectasis", "Pneumothorax",
        "Pleural Effusion", "Pleural Other", "Fracture", "Support Devices"]


def test_values_positive_negative_uncertain_unmentioned():
    out = labels("Small left pleural effusion. No pneumothorax. Possible pneumonia.")
    assert out["Pleural Effusion"] == 1
    assert out["Pneumothorax"] == 0
    assert out["Pneumonia"] == -1
    assert out["Fracture"] is None


def test_positive_beats_negative_and_uncertain():
    assert labels("No effusion. Small right effusion. Possible left effusion.")[
        "Pleural Effusion"] == 1


def test_negative_plus_uncertain_is_uncertain():
    assert labels("No effusion on the right. Possible small left effusion.")[
        "Pleural Effusion"] == -1


def test_no_finding_when_nothing_positive_or_uncertain():
    out = labels("FINDINGS: The lungs are clear. Heart size is normal. No pneumothorax.\n"
                 "IMPRESSION: No acute cardiopulmonary abnormality.")
    assert out["No Finding"] == 1
    assert out["Pneumothorax"] == 0 and out["Cardiomegaly"] == 0


def test_uncertain_finding_breaks_no_finding():
    assert labels("Possible small effusion.")["No Finding"] == 0


def test_support_devices_do_not_break_no_finding_by_default():
    out = labels("Right PICC tip in the SVC. Lungs are clear.")
    assert out["Support Devices"] == 1
    assert out["No Finding"] == 1
    assert labels("Right PICC tip in the SVC. Lungs are clear.",
                  devices_are_findings=True)["No Finding"] == 0


def test_findings_outside_the_14_labels_break_no_finding():
    out = labels("Calcified granuloma. Lungs otherwise clear.")
    assert out["No Finding"] == 0
    assert out["Lung Lesion"] != 1


def test_normal_variants_do_not_break_no_finding():
    assert labels("Bilateral nipple shadows. Lungs are clear.")["No Finding"] == 1


def test_indication_is_not_a_finding():
    out = labels("INDICATION: Pneumonia.\nFINDINGS: Lungs are clear.")
    assert out["Pneumonia"] != 1
    assert labels("INDICATION: Pneumonia.\nFINDINGS: Clear.", all_sections=True)["Pneumonia"] == 1


def test_hierarchy_is_off_by_default_and_optional():
    text = "Left lower lobe atelectasis. Cardiomegaly."
    assert labels(text)["Lung Opacity"] is None
    assert labels(text)["Enlarged Cardiomediastinum"] is None
    out = labels(text, hierarchy=True)
    assert out["Lung Opacity"] == 1 and out["Enlarged Cardiomediastinum"] == 1


def test_hydropneumothorax_feeds_two_labels():
    out = labels("Right hydropneumothorax.")
    assert out["Pneumothorax"] == 1 and out["Pleural Effusion"] == 1


def test_lung_observation_outside_the_lung_feeds_no_lung_label():
    assert labels("Anterior mediastinal mass.")["Lung Lesion"] is None


def test_sternotomy_wires_are_not_a_support_device_but_lines_are():
    assert labels("Median sternotomy wires.")["Support Devices"] is None
    assert labels("Endotracheal tube 5 cm above the carina.")["Support Devices"] == 1


def test_consolidation_is_also_a_lung_opacity():
    # an opacity by definition; the hierarchy's diagnoses (atelectasis above) are not
    out = labels("Left lower lobe consolidation.")
    assert out["Consolidation"] == 1 and out["Lung Opacity"] == 1
    out = labels("No focal consolidation.")
    assert out["Consolidation"] == 0 and out["Lung Opacity"] == 0
    assert labels("Possible right base consolidation.")["Lung Opacity"] == -1


def test_a_heart_at_the_upper_limits_of_normal_is_a_normal_size_for_the_labels():
    text = "FINDINGS: Heart size is upper limits of normal. The lungs are clear."
    # the finding stays a hedge for entailment and the audit ...
    assert [f.status for f in extract_findings(text) if f.observation == "cardiomegaly"] == [
        "uncertain"]
    # ... but the size is within normal limits: no cardiomegaly, a normal study
    out = labels(text)
    assert out["Cardiomegaly"] == 0 and out["No Finding"] == 1
    assert labels("Cardiac size is top normal.")["Cardiomegaly"] == 0
    # a stated enlargement still wins, and a borderline heart is still a hedge
    assert labels("Heart size upper limits of normal. Mild cardiomegaly.")["Cardiomegaly"] == 1
    assert labels("Borderline cardiomegaly.")["Cardiomegaly"] == 1
