"""What the comparison reads of a report (statements) and how it pairs sentences (align)."""
from __future__ import annotations

from workers.compare.align import align, replaced_words
from workers.compare.statements import read_report


def test_statements_are_the_engines_findings_of_the_image_sentences():
    reading = read_report("INDICATION: Pneumonia?\nFINDINGS: Small left pleural effusion. "
                          "The lungs are clear.")
    stated = {(s.observation, s.status, s.laterality, s.severity, s.implied)
              for s in reading.statements}
    assert ("pleural effusion", "present", "left", "small", False) in stated
    assert ("consolidation", "absent", None, None, True) in stated  # "lungs are clear"
    # the indication's question is no statement; the clear lungs deny pneumonia
    assert {s.status for s in reading.statements if s.observation == "pneumonia"} == {"absent"}
    assert reading.image_sentences == (1, 2)


def test_an_affirmed_term_outside_the_vocabulary_is_a_statement_and_a_denied_one_is_not():
    reading = read_report("FINDINGS: Cirrhosis. No appendicitis.")
    unknown = [s for s in reading.statements if not s.known]
    assert [(s.observation, s.status) for s in unknown] == [("cirrhosis", "present")]


def test_a_report_refers_to_a_prior_by_a_cue_or_by_a_comparison_section_naming_an_exam():
    assert read_report("FINDINGS: Stable cardiomegaly.").prior
    assert read_report("COMPARISON: Chest radiograph ___.\nFINDINGS: Cardiomegaly.").prior
    assert not read_report("COMPARISON: None.\nFINDINGS: Cardiomegaly.").prior
    assert not read_report("COMPARISON: No prior studies.\nFINDINGS: Cardiomegaly.").prior
    assert not read_report("FINDINGS: Cardiomegaly.").prior


def test_reading_the_same_text_twice_reads_it_once():
    assert read_report("FINDINGS: No pneumothorax.") is read_report("FINDINGS: No pneumothorax.")


def test_identical_sentences_pair_first_then_similar_ones():
    candidate = {0: "Heart size is normal.", 1: "Small left effusion is present.",
                 2: "No pneumothorax."}
    reference = {0: "No pneumothorax.", 1: "heart size is  normal", 2: "Small right effusion."}
    assert align(candidate, reference) == {0: 1, 2: 0, 1: 2}


def test_short_rewritten_sentences_pair_only_between_the_same_shared_sentences():
    candidate = {0: "Heart size is normal.", 1: "Borderline aspergillosis.", 2: "No effusion."}
    reference = {0: "Heart size is normal.", 1: "Borderline cardiomegaly.", 2: "No effusion."}
    assert align(candidate, reference)[1] == 1
    # the same two sentences, but not in the same place among the shared ones
    candidate = {0: "Borderline aspergillosis.", 1: "Heart size is normal."}
    reference = {0: "Heart size is normal.", 1: "Borderline cardiomegaly."}
    assert 0 not in align(candidate, reference)


def test_replaced_words_finds_the_words_in_a_findings_place_and_nothing_else():
    reference = "Borderline cardiomegaly."
    start = reference.index("cardiomegaly")
    span = replaced_words(reference, "Borderline aspergillosis.", start, start + 12)
    assert span is not None and "Borderline aspergillosis."[span[0]:span[1]] == "aspergillosis"
    # kept, deleted or merely added to: no replacement
    assert replaced_words(reference, "Borderline cardiomegaly again.", start, start + 12) is None
    assert replaced_words(reference, "Borderline.", start, start + 12) is None
    # another sentence altogether is not this one with a word replaced
    assert replaced_words(reference, "The lungs are clear without effusion.",
                          start, start + 12) is None
