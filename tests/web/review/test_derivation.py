"""The rules that turn decisions into the final text, without a database."""
from dataclasses import dataclass

import pytest

from radreview.review import derivation
from radreview.review.diff import DELETE, EQUAL, INSERT, word_diff
from workers.nlp.sections import parse_report

REPORT = (
    "INDICATION: Cough.\n"
    "FINDINGS: Heart size is normal. There is a small left pleural effusion. The lungs are clear.\n"
    "IMPRESSION: Small left effusion."
)


@dataclass
class D:
    id: int
    action: str
    sentence_id: int | None
    after_text: str = ""
    undoes_id: int | None = None


def sentences(text=REPORT):
    return parse_report(text).sentences


def test_the_latest_live_decision_per_sentence_is_effective():
    decisions = [D(1, "reject", 10, "a"), D(2, "edit", 10, "b"), D(3, "accept", 11, "")]
    effective = derivation.effective_decisions(decisions)
    assert {k: v.id for k, v in effective.items()} == {10: 2, 11: 3}


def test_undo_restores_the_previous_decision_on_that_sentence():
    decisions = [D(1, "reject", 10, "a"), D(2, "edit", 10, "b"), D(3, "undo", 10, "a", undoes_id=2)]
    assert derivation.effective_decisions(decisions)[10].id == 1
    assert derivation.last_undoable(decisions).id == 1


def test_undo_chain_walks_back_through_the_study_to_nothing():
    decisions = [D(1, "accept", 10), D(2, "edit", 11, "x")]
    decisions.append(D(3, "undo", 11, undoes_id=derivation.last_undoable(decisions).id))
    assert derivation.last_undoable(decisions).id == 1
    decisions.append(D(4, "undo", 10, undoes_id=derivation.last_undoable(decisions).id))
    assert derivation.last_undoable(decisions) is None
    assert derivation.effective_decisions(decisions) == {}


def test_no_changes_keep_the_text_byte_for_byte():
    s = sentences()
    assert derivation.final_text(REPORT, s, {}) == REPORT
    assert derivation.final_text(REPORT, s, {2: s[2].text}) == REPORT  # a rejected flag


def test_replacing_a_sentence_keeps_headers_and_spacing():
    s = sentences()
    text = derivation.final_text(
        REPORT, s, {2: "There is no pleural effusion.", 4: "No acute disease."}
    )
    assert text == (
        "INDICATION: Cough.\n"
        "FINDINGS: Heart size is normal. There is no pleural effusion. The lungs are clear.\n"
        "IMPRESSION: No acute disease."
    )


def test_removing_a_sentence_takes_its_space_with_it():
    s = sentences()
    assert derivation.final_text(REPORT, s, {2: ""}) == (
        "INDICATION: Cough.\nFINDINGS: Heart size is normal. The lungs are clear.\n"
        "IMPRESSION: Small left effusion."
    )
    # The last sentence of a line takes the space before it.
    assert "normal. There is a small left pleural effusion.\n" in derivation.final_text(
        REPORT, s, {3: ""}
    )


def test_removing_every_sentence_of_a_section_removes_its_header():
    s = sentences()
    text = derivation.final_text(REPORT, s, {1: "", 2: "", 3: ""})
    assert text == "INDICATION: Cough.\nIMPRESSION: Small left effusion."
    assert derivation.final_text(REPORT, s, {4: ""}).endswith("The lungs are clear.")


def test_removing_a_numbered_line_removes_the_line():
    report = (
        "FINDINGS:\n1. Heart normal.\n2. Small effusion.\n3. No pneumothorax.\nIMPRESSION:\nNormal."
    )
    text = derivation.final_text(report, sentences(report), {1: ""})
    assert text == "FINDINGS:\n1. Heart normal.\n3. No pneumothorax.\nIMPRESSION:\nNormal."


def test_final_sections_carry_the_decided_text_with_the_report_headers():
    s = sentences()
    result = derivation.final_sections(
        s, {2: "", 4: "No acute disease."}, derivation.section_titles(REPORT)
    )
    assert [r.as_dict() for r in result] == [
        {"name": "indication", "title": "INDICATION", "text": "Cough."},
        {
            "name": "findings",
            "title": "FINDINGS",
            "text": "Heart size is normal. The lungs are clear.",
        },
        {"name": "impression", "title": "IMPRESSION", "text": "No acute disease."},
    ]


@pytest.mark.parametrize("before, after", [
    ("There is a small left pleural effusion.", "There is no left pleural effusion."),
    ("Heart size is normal.", "Heart size is normal."),
    ("", "New sentence."),
    ("Old sentence.", ""),
])
def test_word_diff_rebuilds_both_sides(before, after):
    pieces = word_diff(before, after)
    assert "".join(p.text for p in pieces if p.op != INSERT) == before
    assert "".join(p.text for p in pieces if p.op != DELETE) == after


def test_word_diff_marks_whole_words():
    pieces = word_diff(
        "There is a small left pleural effusion.", "There is no left pleural effusion."
    )
    assert [(p.op, p.text) for p in pieces] == [
        (EQUAL, "There is "),
        (DELETE, "a small"),
        (INSERT, "no"),
        (EQUAL, " left pleural effusion."),
    ]
