"""Hedges and history of a whole sentence (workers/nlp/hedges.py), as the contradiction
detector and the correction ask them."""
import pytest

from workers.nlp.hedges import hedged, leaves_choice_open, speaks_of_history


@pytest.mark.parametrize("question,sentence,expected", [
    (hedged, "Possible small left effusion.", True),
    (hedged, "Pneumonia cannot be excluded.", True),
    (hedged, "Left basilar opacity?", True),
    (hedged, "Borderline heart size.", True),
    (hedged, "Small left pleural effusion.", False),
    (hedged, "Likewise the heart is normal.", False),  # "likely" only as a word of its own
    (leaves_choice_open, "Opacity may represent atelectasis or pneumonia.", True),
    (leaves_choice_open, "Atelectasis and/or consolidation.", True),
    (leaves_choice_open, "Either atelectasis or scarring.", True),
    (leaves_choice_open, "Pneumothorax or appreciable pleural effusion.", False),
    (leaves_choice_open, "Left base atelectasis or scarring.", False),
    (speaks_of_history, "History of right pneumothorax.", True),
    (speaks_of_history, "The effusion has resolved.", True),
    (speaks_of_history, "Status post sternotomy.", True),
    (speaks_of_history, "No longer seen is the left effusion.", True),
    (speaks_of_history, "Small right pneumothorax.", False),
])
def test_what_a_sentence_commits_to(question, sentence, expected):
    assert question(sentence) is expected
