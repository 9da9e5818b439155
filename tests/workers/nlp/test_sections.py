import pytest

from workers.nlp.sections import parse_report


def sentences(text):
    parsed = parse_report(text)
    for s in parsed.sentences:
        assert s.text == text[s.start:s.end]
    return [s.text for s in parsed.sentences]


def test_known_headers_name_sections_and_spans_skip_the_header():
    text = ("INDICATION: cough\nCOMPARISON: None.\nHISTORY: smoker\nTECHNIQUE: PA and lateral\n"
            "FINDINGS: Lungs are clear.\nIMPRESSION: Normal chest.")
    parsed = parse_report(text)
    assert [s.name for s in parsed.sections] == [
        "indication", "comparison", "history", "technique", "findings", "impression"]
    findings = parsed.sections[4]
    assert findings.header == "FINDINGS"
    assert text[findings.start:findings.end] == "Lungs are clear."
    assert [s.section for s in parsed.sentences][-2:] == ["findings", "impression"]


def test_mixed_case_header_and_other_allcaps_header():
    parsed = parse_report("Findings: Heart normal.\nImpression: Normal.\nSPECIAL NOTE: Called.")
    assert [(s.name, s.header) for s in parsed.sections] == [
        ("findings", "Findings"), ("impression", "Impression"), ("other", "SPECIAL NOTE")]


def test_no_header_is_one_findings_section():
    parsed = parse_report("The lungs are clear. No effusion.")
    assert [(s.name, s.start, s.end, s.header) for s in parsed.sections] == [
        ("findings", 0, 33, None)]
    assert [s.section for s in parsed.sentences] == ["findings", "findings"]


def test_text_before_a_lone_impression_header_is_findings():
    parsed = parse_report("Lungs are clear. IMPRESSION: Normal.")
    assert [s.name for s in parsed.sections] == ["findings", "impression"]


def test_deidentification_token_is_not_a_header():
    parsed = parse_report("FINDINGS: Normal.\nXXXX: something")
    assert [s.name for s in parsed.sections] == ["findings"]


def test_sentence_index_counts_across_sections():
    parsed = parse_report("FINDINGS: A is clear. B is clear.\nIMPRESSION: Normal.")
    assert [(s.index, s.section) for s in parsed.sentences] == [
        (0, "findings"), (1, "findings"), (2, "impression")]


@pytest.mark.parametrize("text, expected", [
    ("Seen by Dr. Smith today. Normal.", ["Seen by Dr. Smith today.", "Normal."]),
    ("Artifacts, e.g. buttons, are seen. Normal.",
     ["Artifacts, e.g. buttons, are seen.", "Normal."]),
    ("Nodule of approx. 2 cm. Normal.", ["Nodule of approx. 2 cm.", "Normal."]),
    ("Nodule measures 2.5 cm. Normal.", ["Nodule measures 2.5 cm.", "Normal."]),
    ("Mass of 1.2 x 3.4 cm in the apex. Normal.", ["Mass of 1.2 x 3.4 cm in the apex.", "Normal."]),
    ("1. No pneumothorax. 2. Stable cardiomegaly.", ["No pneumothorax.", "Stable cardiomegaly."]),
    ("1. No acute process. 2.No fracture.", ["No acute process.", "No fracture."]),
    ("1) Clear lungs. 2) Normal heart.", ["Clear lungs.", "Normal heart."]),
    ("Midline sternotomy XXXX. Inferior XXXX XXXX XXXX.",
     ["Midline sternotomy XXXX.", "Inferior XXXX XXXX XXXX."]),
    ("Heart size normal.Calcified granuloma.", ["Heart size normal.", "Calcified granuloma."]),
    ("No acute bone abnormality.. Normal heart.", ["No acute bone abnormality..", "Normal heart."]),
    ("Lungs are clear\nNo effusion\n- Heart normal",
     ["Lungs are clear", "No effusion", "Heart normal"]),
    ("The lungs are\nclear.", ["The lungs are\nclear."]),
    ("Lungs clear. 5 mm granuloma unchanged", ["Lungs clear.", "5 mm granuloma unchanged"]),
    ("Is there pneumonia? No.", ["Is there pneumonia?", "No."]),
    ("", []),
])
def test_sentence_splitting(text, expected):
    assert sentences(text) == expected


def test_parse_is_cached_and_immutable():
    text = "FINDINGS: Normal heart."
    assert parse_report(text) is parse_report(text)
