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


# ---- real-world (MIMIC-CXR style) layouts ------------------------------------------------

def layout(text):
    parsed = parse_report(text)
    for s in parsed.sentences:
        assert s.text == text[s.start:s.end]
    return [(s.section, s.text) for s in parsed.sentences]


def test_a_header_paragraph_ends_at_its_blank_line_and_the_body_is_findings():
    text = ("FINAL REPORT\n REASON FOR EXAM: Dyspnea.\n \n There is a large right pleural "
            "effusion. A right chest tube is in place.\n Mild pulmonary edema.")
    assert layout(text) == [
        ("indication", "Dyspnea."),
        ("findings", "There is a large right pleural effusion."),
        ("findings", "A right chest tube is in place."),
        ("findings", "Mild pulmonary edema."),
    ]


def test_a_wrapped_indication_stays_one_paragraph():
    text = ("INDICATION: ___-year-old man intubated after transfer for suspected\n"
            " pneumonia.\n\nCOMPARISON: Radiograph of ___.\n\nNo pneumothorax.")
    assert layout(text) == [
        ("indication", "___-year-old man intubated after transfer for suspected\n pneumonia."),
        ("comparison", "Radiograph of ___."), ("findings", "No pneumothorax.")]


def test_banners_separators_and_alerts_hold_no_text():
    text = ("WET READ: ___ ___ 10:40 AM\n*** ED URGENT ATTENTION ***\n" + "_" * 60 + "\n"
            "                FINAL REPORT\nIMPRESSION:\n\n1. No large pneumothorax.")
    assert layout(text) == [("impression", "No large pneumothorax.")]


def test_a_title_line_names_the_examination_not_a_finding():
    text = ("FINAL REPORT\nPA AND LATERAL VIEWS OF THE CHEST\n\nINDICATION: Cough.\n\n"
            "LEFT LUNG IS CLEAR.\n\nPORTABLE AP CHEST FILM ___ AT 4:51")
    assert layout(text) == [
        ("technique", "PA AND LATERAL VIEWS OF THE CHEST"), ("indication", "Cough."),
        ("findings", "LEFT LUNG IS CLEAR."), ("technique", "PORTABLE AP CHEST FILM ___ AT 4:51")]


def test_a_view_header_with_a_comma_introduces_the_findings():
    text = "COMPARISON: ___.\n\nCHEST, AP UPRIGHT:  No pneumothorax. Moderate cardiomegaly."
    parsed = parse_report(text)
    assert [(s.name, s.header) for s in parsed.sections] == [
        ("comparison", "COMPARISON"), ("findings", "CHEST, AP UPRIGHT")]
    assert [s.text for s in parsed.sentences_in("findings")] == [
        "No pneumothorax.", "Moderate cardiomegaly."]


def test_a_wet_read_is_read_without_its_time_stamp_and_ends_at_the_final_report():
    text = ("WET READ VERSION #1 ___ ___ ___ 8:26 PM\n  Tracheostomy tube in place.\n"
            "  No pneumothorax.\n " + "_" * 40 + "\n        FINAL REPORT\n INDICATION: Air leak."
            "\n\n IMPRESSION:\n\n 1. Stable subcutaneous emphysema.\n\n 2. No pneumothorax.")
    assert layout(text) == [
        ("wet_read", "Tracheostomy tube in place."), ("wet_read", "No pneumothorax."),
        ("indication", "Air leak."), ("impression", "Stable subcutaneous emphysema."),
        ("impression", "No pneumothorax.")]
    assert parse_report(text).sections[0].header == "WET READ"


@pytest.mark.parametrize("addendum", ["ADDENDUM:\n", "*** ADDENDUM ***\n", "ADDENDUM: "])
def test_an_addendum_is_its_own_image_section(addendum):
    text = "FINDINGS: Lungs are clear.\n\n" + addendum + "A small left effusion was missed."
    assert layout(text)[-1] == ("addendum", "A small left effusion was missed.")
    assert parse_report(text).image_sentences[-1].section == "addendum"


def test_a_header_alone_on_its_line_and_a_notification_paragraph():
    text = ("IMPRESSION\n1. No pneumothorax.\n\n2. Mild cardiomegaly.\n\n"
            "NOTIFICATION: Discussed with Dr. ___ at 10:00.")
    assert layout(text) == [
        ("impression", "No pneumothorax."), ("impression", "Mild cardiomegaly."),
        ("notification", "Discussed with Dr. ___ at 10:00.")]
    assert [s.section for s in parse_report(text).image_sentences] == ["impression"] * 2


@pytest.mark.parametrize("text, expected", [
    # a wrapped line that stops on a word no sentence ends with goes on, capital or not
    ("The ET tube ends 3 cm above the\n SVC junction. Lungs clear.",
     ["The ET tube ends 3 cm above the\n SVC junction.", "Lungs clear."]),
    # a number that is no list number goes on; a list number starts an item
    ("Radiographs approximately\n 24 hours apart.\n 2. No effusion.",
     ["Radiographs approximately\n 24 hours apart.", "No effusion."]),
    ("- Heart normal\n\u2022 Lungs clear\n  -___", ["Heart normal", "Lungs clear"]),
])
def test_wrapped_lines_bullets_and_deidentified_lines(text, expected):
    assert sentences(text) == expected


@pytest.mark.parametrize("text, cut", [
    ("FINDINGS: No acute process. No pneumothor", True),        # mid-word
    ("FINDINGS: No pneumothorax. The mediast", True),
    ("FINDINGS: Partially visualized is", True),                # on a word no sentence ends with
    ("FINDINGS: No effusion.\n\nIMPRESS", True),                # a header cut short
    ("FINDINGS: Lungs are clear. No evidence of tuberculosis", False),
    ("FINDINGS: No effusion.\nIMPRESSION: Normal chest", False),
    ("FINDINGS: No effusion.", False),
])
def test_text_cut_off(text, cut):
    assert parse_report(text).cut_off is cut


def test_a_cut_off_word_is_blanked_and_a_cut_off_header_makes_no_sentence():
    parsed = parse_report("FINDINGS: No acute process. No pneumothor")
    assert parsed.whole_words(1) == "No " + " " * len("pneumothor")
    assert parsed.whole_words(0) == "No acute process."
    assert layout("FINDINGS: No effusion.\n\nIMPRESS") == [("findings", "No effusion.")]


def test_a_report_with_no_image_section_reads_no_images():
    parsed = parse_report("FINAL REPORT\nINDICATION: Evaluate for pneumonia.\n\nCOMPARISON: None.")
    assert not parsed.reads_images and parsed.image_sentences == ()
    assert [s.section for s in parsed.sentences] == ["indication", "comparison"]
    assert parse_report("Lungs are clear.").reads_images
