"""V-RAG entities: extraction, the shortest library sub-phrase, what a report says."""
from __future__ import annotations

from workers.imagememory.entities import (
    extract_entities,
    library_entities,
    question_for,
    shortest_library_subphrase,
    statement,
)


def test_disease_entities_carry_their_modifiers_status_and_sentence():
    report = ("Small left pleural effusion. Mild cardiomegaly. Left lower lobe atelectasis. "
              "Possible right upper lobe pneumonia. No pneumothorax. The lungs are otherwise "
              "clear. Nipple shadows.")
    mentions = [(m.phrase, m.observation, m.status, m.sentence_index)
                for m in extract_entities(report)]
    assert mentions == [
        ("small left pleural effusion", "pleural effusion", "present", 0),
        ("mild cardiomegaly", "cardiomegaly", "present", 1),
        ("left lower lobe atelectasis", "atelectasis", "present", 2),
        ("right upper lobe pneumonia", "pneumonia", "uncertain", 3),
        ("pneumothorax", "pneumothorax", "absent", 4),
    ]  # "clear" is no disease; nipple shadows are a look-alike


def test_entities_map_to_their_shortest_terminal_sub_phrase_seen_in_the_library():
    vocabulary = set(library_entities("Atelectasis. Large pleural effusion. Pericardial effusion."))
    assert {"atelectasis", "pleural effusion", "pericardial effusion"} <= vocabulary
    assert shortest_library_subphrase("left lower lobe atelectasis", vocabulary) == "atelectasis"
    assert shortest_library_subphrase("small left pleural effusion", vocabulary) == \
        "pleural effusion"
    # A shorter tail naming another observation is never taken.
    assert shortest_library_subphrase("pericardial effusion", {"effusion"}) == \
        "pericardial effusion"
    assert shortest_library_subphrase("right pneumothorax", vocabulary) == "right pneumothorax"


def test_what_a_report_says_about_an_observation():
    report = ("FINDINGS: Right lower lobe pneumonia. No pneumothorax. Heart size is normal.\n"
              "INDICATION: rule out effusion")
    assert statement(report, "pneumonia") == "present"
    assert statement(report, "opacity") == "present"        # a present child implies its parent
    assert statement(report, "pneumothorax") == "absent"
    assert statement(report, "cardiomegaly") == "absent"    # from the normal statement
    assert statement(report, "pleural effusion") is None    # the indication is a question
    assert statement("No focal opacity.", "pneumonia") == "absent"  # absent parent, absent child
    assert statement("Pleural effusion. No pleural effusion on the left.",
                     "pleural effusion") == "present"


def test_questions_read_naturally():
    assert question_for("pleural effusion") == "Is there a pleural effusion?"
    assert question_for("pleural effusions") == "Are there pleural effusions?"
    assert question_for("cardiomegaly") == "Is there cardiomegaly?"
    assert question_for("endotracheal tube") == "Is there an endotracheal tube?"
    assert question_for("atelectasis") == "Is there atelectasis?"
