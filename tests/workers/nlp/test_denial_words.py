"""Where a denial's words stand around a finding (workers/nlp/denial_words.py), as the
correction's shape checks ask it."""
import pytest

from workers.nlp.denial_words import (
    denial_starts,
    denied_after,
    denied_words,
    ends_with_denial,
    last_denial_end,
    negating_words,
)


@pytest.mark.parametrize("before,fewest,most,words", [
    ("No ", 0, 4, ""),
    ("No mild ", 0, 4, "mild "),
    ("Lungs are clear without focal ", 0, 4, "focal "),
    ("There is no right 7th rib ", 0, 4, "right 7th rib "),
    # five words away is "far": only the 5-9 reach finds it
    ("No interval appearance of mild to ", 0, 4, None),
    ("No interval appearance of mild to ", 5, 9, "interval appearance of mild to "),
    ("no underlying collapse ", 1, 4, "underlying collapse "),
    ("No ", 1, 4, None),
    # not a denial word, or not at a word's start
    ("Nothing ", 0, 4, None),
    ("Normal heart. Mild ", 0, 4, None),
    ("Casino mild ", 0, 4, None),
    ("The tube is not ", 0, 4, None),
    # the words must end where the finding starts
    ("No mild", 0, 4, None),
])
def test_denied_words(before, fewest, most, words):
    assert denied_words(before, fewest, most) == words


@pytest.mark.parametrize("text,pos,starts", [
    ("No acute process, notably no pneumothorax", 26, True),
    ("Clear, specifically without effusion", 20, True),
    ("No acute process, notably nothing", 26, False),
    ("Effusion, notably large", 18, False),
])
def test_denial_starts(text, pos, starts):
    assert denial_starts(text, pos) == starts


@pytest.mark.parametrize("text,denied", [
    ("are not seen.", True),
    ("is not clearly identified.", True),
    ("on the left side is not seen.", True),
    ("Are Not Demonstrated", True),
    ("is seen.", False),
    ("is not in the expected position.", False),
    # more than five words before the verb: another clause's
    ("on the left side of the chest is not seen.", False),
])
def test_denied_after(text, denied):
    assert denied_after(text) == denied


@pytest.mark.parametrize("text,ends", [
    ("No ", True), ("There is no", True), ("without  ", True), ("Nor ", False),
    ("casino ", False), ("No mild ", False),
])
def test_ends_with_denial(text, ends):
    assert ends_with_denial(text) == ends


@pytest.mark.parametrize("before,end", [
    ("No new ", 2),
    ("Negative for acute ", 12),
    ("No effusion, free of ", 20),
    ("No effusion, without ", 20),
    ("Heart is normal. ", None),
    ("Nothing acute, nodular ", None),  # "Nothing", "nodular": no cue of their own
])
def test_last_denial_end(before, end):
    assert last_denial_end(before) == end


def test_negating_words():
    text = "Heart is not enlarged, no effusion; Nothing without note."
    assert [text[a:b] for a, b in negating_words(text)] == ["not", "no", "without"]
