"""Editing one sentence: token-level edits applied to the original text (the generic ways to
flip a sentence's polarity, ``negations_of``/``affirmations_of``, are workers.nlp.polarity's).

Corrections keep the report's own wording: a library wording is applied as the smallest token
edit to the original sentence (so "XXXX", capitals and punctuation survive), not pasted in.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

# The ways to flip a sentence's polarity live with the one negation (workers/nlp/polarity.py).
from workers.library.stats import Token, Tokens, tokenize
from workers.nlp.denial_words import ends_with_denial
from workers.nlp.polarity import affirmations_of, negations_of

_SPACE_RE = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCT_RE = re.compile(r"\s+([,.;:!?])")
_LEADING_JUNK_RE = re.compile(r"^[\s,;:]+")


def _tidy(text: str, original: str) -> str:
    text = _SPACE_RE.sub(" ", text)
    text = _SPACE_BEFORE_PUNCT_RE.sub(r"\1", text)
    text = _LEADING_JUNK_RE.sub("", text).strip()
    text = re.sub(r",\s*(?=[.;]|$)", "", text)
    text = re.sub(r"\b(or|and),\s", r"\1 ", text)
    if original[:1].isupper() and text[:1].islower():
        text = text[:1].upper() + text[1:]
    return text


def _lower_first(word: str) -> str:
    """A capitalised word moved from the sentence start ("Pneumothorax" -> "pneumothorax"),
    but not an acronym or "XXXX"."""
    if len(word) > 1 and word[:2].isupper():
        return word
    return word[:1].lower() + word[1:]


def apply_tokens(sentence: str, target: Tokens) -> str:
    """``sentence`` edited so that its tokens become ``target``, with the fewest changes."""
    tokens = tokenize(sentence)
    words = tuple(t.text for t in tokens)
    if not tokens:
        return " ".join(target)
    out: list[str] = []
    cursor = 0
    moved_first = False
    for op, i1, i2, j1, j2 in SequenceMatcher(None, words, target, autojunk=False).get_opcodes():
        new = " ".join(target[j1:j2])
        if op == "equal":
            end = tokens[i2 - 1].end
            out.append(sentence[cursor:end])
            cursor = end
        elif op == "delete":
            out.append(sentence[cursor:tokens[i1].start])
            cursor = tokens[i2 - 1].end
        elif op == "insert":
            if i1 < len(tokens):
                out.append(sentence[cursor:tokens[i1].start])
                out.append(new + " ")
                cursor = tokens[i1].start
                moved_first = moved_first or i1 == 0
            else:
                end = tokens[-1].end
                out.append(sentence[cursor:end] + " " + new)
                cursor = end
        else:  # replace
            out.append(sentence[cursor:tokens[i1].start])
            out.append(new)
            cursor = tokens[i2 - 1].end
    out.append(sentence[cursor:])
    text = "".join(out)
    if moved_first:
        first = tokens[0]
        start = text.lower().find(first.text, 0)
        if start >= 0:
            text = text[:start] + _lower_first(text[start:start + len(first.text)]) \
                + text[start + len(first.text):]
    return _tidy(text, sentence)


def replace_span(sentence: str, start: int, end: int, words: str) -> str:
    """``sentence`` with ``sentence[start:end]`` replaced by ``words`` (an empty string
    removes the words, with a list comma or "or" next to them)."""
    if not words:
        before, after = sentence[:start], sentence[end:]
        before = re.sub(r"(?:,\s*|\s+(?:or|and)\s+)$", " ", before)
        if before.strip() == "" or re.search(r"\bof\s*$", before, re.I) \
                or ends_with_denial(before):
            after = re.sub(r"^\s*(?:,|or\b|and\b)\s*", " ", after)
        text = before + after
    else:
        if start == 0 and sentence[:1].isupper():
            words = words[:1].upper() + words[1:]
        text = sentence[:start] + words + sentence[end:]
    return _tidy(text, sentence)


def swap_sides(sentence: str, start: int | None = None, end: int | None = None) -> str | None:
    """``sentence`` with "left" and "right" swapped (in ``start:end`` when given)."""
    a, b = (start or 0), (end if end is not None else len(sentence))
    segment = sentence[a:b]
    swapped = re.sub(r"\b(left|right|Left|Right|LEFT|RIGHT)\b",
                     lambda m: {"left": "right", "right": "left", "Left": "Right",
                                "Right": "Left", "LEFT": "RIGHT", "RIGHT": "LEFT"}[m.group()],
                     segment)
    if swapped == segment:
        return None
    return sentence[:a] + swapped + sentence[b:]


__all__ = ["Token", "affirmations_of", "apply_tokens", "negations_of", "replace_span",
           "swap_sides"]
