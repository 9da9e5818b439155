"""Sentence edits keep the report's own wording."""
import pytest

from workers.correction.rewrite import (
    affirmations_of,
    apply_tokens,
    negations_of,
    replace_span,
    swap_sides,
)
from workers.library.stats import tokens_of


@pytest.mark.parametrize("sentence, target, expected", [
    ("Pneumothorax or pleural effusion.", "no pneumothorax or pleural effusion",
     "No pneumothorax or pleural effusion."),
    ("There is XXXX effusion.", "there is no xxxx effusion", "There is no XXXX effusion."),
    ("Lungs are clear with focal consolidation.", "lungs are clear without focal consolidation",
     "Lungs are clear without focal consolidation."),
    ("No pneumothorax.", "pneumothorax", "Pneumothorax."),
])
def test_apply_tokens_makes_the_smallest_edit(sentence, target, expected):
    assert apply_tokens(sentence, tuple(target.split())) == expected


def test_negations_cover_the_usual_forms():
    forms = {" ".join(t) for t in negations_of(tokens_of("There is a pleural effusion."))}
    assert "there is no pleural effusion" in forms
    forms = {" ".join(t) for t in negations_of(tokens_of("Pleural effusion is seen."))}
    assert {"pleural effusion is not seen", "no pleural effusion is seen"} <= forms
    denials = negations_of(tokens_of("Lungs clear with edema."))
    assert ("lungs", "clear", "without", "edema") in denials


def test_affirmations_undo_a_denial():
    forms = {" ".join(t) for t in affirmations_of(tokens_of("There is no cardiomegaly."))}
    assert forms == {"there is cardiomegaly"}


def test_replace_span_fills_or_removes_a_list_item():
    sentence = "No pleural effusion or cirrhosis."
    start = sentence.index("cirrhosis")
    assert replace_span(sentence, start, start + 9, "pneumothorax") == \
        "No pleural effusion or pneumothorax."
    assert replace_span(sentence, start, start + 9, "") == "No pleural effusion."
    sentence = "No cirrhosis, effusion, or pneumothorax."
    assert replace_span(sentence, 3, 12, "") == "No effusion, or pneumothorax."


def test_swap_sides():
    assert swap_sides("Left lower lobe opacity; right effusion.") == \
        "Right lower lobe opacity; left effusion."
    assert swap_sides("Bibasilar atelectasis.") is None
