"""Hedges and history of a whole sentence (workers/nlp/hedges.py), as the contradiction
detector and the correction ask them."""
import pytest

from workers.nlp.hedges import hedged, leaves_choice_open, speaks_of_history


@pytest.mark.parametrize("sentence,expected", [
    ("Possible small left effusion.", True),
    ("Pneumonia cannot be excluded.", True),
    ("Left basilar opacity?", True),
    ("Borderline heart size.", True),
    ("Small left pleural effusion.", False),
    ("Likewise the heart is normal.", False),  # "likely" only as a word of its own
])
def test_hedged(sentence, expected):
    assert hedged(sentence) is expected


@pytest.mark.parametrize("sentence,expected", [
    ("Opacity may represent atelectasis or pneumonia.", True),
    ("Atelectasis and/or consolidation.", True),
    ("Either atelectasis or scarring.", True),
    ("Pneumothorax or appreciable pleural effusion.", False),
    ("Left base atelectasis or scarring.", False),
])
def test_leaves_choice_open(sentence, expected):
    assert leaves_choice_open(sentence) is expected


@pytest.mark.parametrize("sentence,expected", [
    ("History of right pneumothorax.", True),
    ("The effusion has resolved.", True),
    ("Status post sternotomy.", True),
    ("No longer seen is the left effusion.", True),
    ("Small right pneumothorax.", False),
])
def test_speaks_of_history(sentence, expected):
    assert speaks_of_history(sentence) is expected
