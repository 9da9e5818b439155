"""The vocabulary of what a chest radiograph can show."""
import pytest

from workers.nlp.radiographic import is_radiographic, out_of_domain_terms, radiographic_status


@pytest.mark.parametrize("text", [
    "pleural effusion", "granuloma", "atelectasis", "mild scoliosis", "left lower lobe pneumonia",
    "There is a small left pleural effusion.", "PA and lateral views were obtained.",
    "Calcified mediastinal lymph nodes.", "Differential diagnosis includes pneumonia.",
    "Cardiomyopathy", "hiatal hernia", "emphysema", "Volume loss of the right hand side.",
    "Right-hand sided volume loss.",
])
def test_radiographic(text):
    assert is_radiographic(text)
    assert out_of_domain_terms(text) == []


@pytest.mark.parametrize("text, term", [
    ("No cirrhosis or effusions.", "cirrhosis"),
    ("gastric ulcer", "gastric"),
    ("pharyngitis", "pharyngitis"),
    ("migraine", "migraine"),
    ("Findings of appendicitis.", "appendicitis"),
    ("Renal cyst.", "Renal"),
    ("glomerulonephritis", "glomerulonephritis"),   # shape: -itis
    ("hepatic steatosis", "hepatic"),
    ("Fracture of the left hand.", "hand"),
])
def test_out_of_domain(text, term):
    assert not is_radiographic(text)
    assert term in out_of_domain_terms(text)


def test_borderline_diagnoses():
    assert radiographic_status("aspergillosis") == "borderline"
    assert is_radiographic("aspergillosis")
    assert not is_radiographic("aspergillosis", strict=True)
    assert out_of_domain_terms("Aspergillosis at the left apex.", strict=True) == [
        "Aspergillosis"]


def test_unknown_words_are_not_flagged():
    assert radiographic_status("hello world") == "unknown"
    assert is_radiographic("hello world")
    assert out_of_domain_terms("Diagnosis and prognosis discussed.") == []


@pytest.mark.parametrize("text, term", [
    ("Tietze syndrome.", "syndrome"),          # a clinical construct
    ("Laryngomalacia.", "laryngomalacia"),     # shape: -malacia
    ("Tachypnea.", "tachypnea"),               # shape: -pnea
    ("Left knee effusion.", "knee"),           # a site outside the chest
])
def test_general_mechanisms(text, term):
    assert term in [t.lower() for t in out_of_domain_terms(text)]


def test_eponyms_are_borderline_and_signs_are_radiographic():
    assert radiographic_status("Paget's disease of the spine.") == "borderline"
    assert is_radiographic("Pulmonary oligemia.")
    assert is_radiographic("Pectus excavatum deformity.")
    assert is_radiographic("Skin fold over the right apex.")


@pytest.mark.parametrize("text", [
    "No pneumothorax detected.",                                    # report verbs
    "No pneumothorax is clearly identified.",
    "NG tube ends in the mid-gastric cavity.",                      # organs as device positions
    "Esophageal drainage tube ends in the region of the pylorus.",
    "An intended esophageal temperature probe ends at the level of the aortic arch.",
    "An enteric tube courses through the esophagus and into the stomach.",
    "The neo esophagus is distended with fluid to the level of the aortic arch.",
    "The patient is status post esophagectomy and gastric pull through.",
    "Pacer leads terminate in the right atrium and the coronary sinus.",
    "Prominent gas over the right upper quadrant is likely colonic.",  # an organ as a place
    "Pleural effusions, if any, are small.  The gastric",             # cut off before its head
    "The patient is status post right rotator cuff repair.",
    "No lytic or sclerotic lesion.",
])
def test_radiology_wording_and_device_positions_are_not_out_of_domain(text):
    assert out_of_domain_terms(text, strict=True) == []


@pytest.mark.parametrize("text, term", [
    ("Gastric cancer in the left lower lobe.", "Gastric"),   # an organ as the place of a disease
    ("No esophageal stricture.", "esophageal"),
    ("Small liver cancer.", "liver"),
    ("No inflammatory bowel disease.", "bowel"),
    ("The NG tube ends in the stomach. Renal cyst.", "Renal"),
])
def test_an_organ_at_the_films_edge_is_out_of_domain_as_the_place_of_a_disease(text, term):
    assert term in out_of_domain_terms(text)


@pytest.mark.parametrize("text, term", [
    ("2 right lung nodules are new, concerning for septic emboli.", None),   # suggested
    ("Cavitation due to necrotizing pneumonia and/or septic emboli.", None),  # named as a cause
    ("The lesion could be either infection or infarction.", None),
    ("Septic emboli in both lungs.", "emboli"),                             # stated as fact
    ("Barrett's esophagus.", "Barrett's esophagus"),                        # an eponym
])
def test_a_borderline_diagnosis_the_report_only_suggests_is_no_claim(text, term):
    found = out_of_domain_terms(text, strict=True)
    assert (term in found) if term else found == []


def test_the_patients_history_is_no_claim_about_the_film():
    text = "Rounded opacities correspond to known metastases in this patient with rectal cancer."
    assert out_of_domain_terms(text) == []
    assert out_of_domain_terms("Rounded opacities and rectal cancer.") == ["rectal"]
