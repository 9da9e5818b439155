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
    assert out_of_domain_terms("Possible aspergillosis.", strict=True) == ["aspergillosis"]


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
