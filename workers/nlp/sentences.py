"""Sentences of one section body, with character spans into the report text.

The definition follows the benchmark's (../shared/bench/README.md), which its scorers use:

* a sentence ends at a period (a run of periods, or "?" / "!") followed by whitespace or by the
  end of its section; text after the last such period is a final sentence;
* a period that only closes a leading list number ("1.", "2)") does not end a sentence, and the
  list number is not part of the sentence span;

and it survives what real reports contain: abbreviations ("Dr.", "e.g.", "approx."), decimal
measurements ("2.5 cm", "1.2 x 3.4 cm"), de-identification tokens ("XXXX", "___"), a missing
space after a period ("normal.Calcified") and double periods ("abnormality..", kept in the
span). A line break ends a sentence when the next line starts a new item (a capital letter, a
list number or a bullet) or after a blank line. A wrapped line does not: one that goes on in
lower case, with a number that is no list number ("approximately\\n 24 hours apart"), or after
a line that stops on a word no sentence ends with ("the", "of", "is", ...).
"""
from __future__ import annotations

import re

_ABBREVIATIONS = frozenset({
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "approx", "appr", "vs", "e.g", "i.e",
    "eg", "ie", "cf", "fig", "figs", "incl", "est", "resp", "a.m", "p.m", "ca", "no",
    "nos", "al", "et", "pt", "pts",
})
# Words no sentence ends with: a line that stops on one was wrapped mid-sentence.
_CONTINUING_WORDS = frozenset({
    "a", "an", "the", "of", "to", "in", "on", "at", "by", "for", "from", "with", "within",
    "without", "into", "onto", "over", "under", "and", "or", "nor", "but", "as", "than", "is",
    "are", "was", "were", "be", "been", "has", "have", "its", "their", "this", "these", "that",
    "which", "whose", "no", "not", "there", "per", "via", "versus", "vs",
})

# A sentence boundary candidate: a run of terminal punctuation, optionally closed by a
# bracket or quote. What follows decides whether it is one.
_BOUNDARY_RE = re.compile(r"[.?!]+[)\]\"']?|\n")
_WORD_BEFORE_RE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LAST_WORD_RE = re.compile(r"([A-Za-z]+)[ \t\r]*$")
_LIST_NUMBER_RE = re.compile(r"\(?\d{1,2}[.)](?!\d)")
_LIST_MARKER_RE = re.compile(r"(?:\(?\d{1,2}[.)](?!\d)|[-*\u2022\u2013]|[,;:])[ \t]*")
_BLANK = " \t\r\n"


def continues_sentence(word: str) -> bool:
    """Whether no sentence ends with ``word`` ("the", "of", "is", ...)."""
    return word.lower() in _CONTINUING_WORDS


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` moved inwards past whitespace."""
    while start < end and text[start] in _BLANK:
        start += 1
    while end > start and text[end - 1] in _BLANK:
        end -= 1
    return start, end


def _line_break_ends_sentence(text: str, at: int, end: int) -> bool:
    """Whether the line break at ``at`` ends a sentence in a body that ends at ``end``."""
    nxt = at + 1
    while nxt < end and text[nxt] in " \t\r":
        nxt += 1
    if nxt >= end or text[nxt] == "\n":
        return True
    prev = at - 1
    while prev >= 0 and text[prev] in " \t\r":
        prev -= 1
    if prev >= 0 and text[prev] in ".?!:;":
        return False  # the punctuation before it was already a boundary (or a header)
    last = _LAST_WORD_RE.search(text, max(0, at - 40), at)
    if last and continues_sentence(last.group(1)):
        return False  # "... tip in the\n SVC": a wrapped line
    if text[nxt].isdigit():
        return bool(_LIST_NUMBER_RE.match(text, nxt))
    return text[nxt].isupper() or text[nxt] in "-*\u2022"


def _is_boundary(text: str, m: re.Match, end: int) -> bool:
    """Whether the punctuation run (or newline) matched by ``m`` ends a sentence in a body
    that ends at ``end``."""
    if m.group() == "\n":
        return _line_break_ends_sentence(text, m.start(), end)
    after = m.end()
    run = m.group()
    if after >= end:
        return True
    nxt = text[after]
    if "." in run and run.rstrip(")]\"'") == ".":
        # a single period: skip abbreviations and leading list numbers
        before = text[max(0, m.start() - 12):m.start()]
        wm = _WORD_BEFORE_RE.search(before)
        if wm and wm.group(1).lower() in _ABBREVIATIONS and nxt in " \t" \
                and not (wm.group(1).lower() == "no" and after + 1 < end
                         and text[after + 1].isupper()):
            return False
    if nxt in _BLANK:
        return True
    # "normal.Calcified": a period glued to the next capitalised word
    prev = text[m.start() - 1] if m.start() > 0 else ""
    if run[0] == "." and (prev.islower() or prev == ")") and nxt.isupper():
        wm = _WORD_BEFORE_RE.search(text[max(0, m.start() - 12):m.start()])
        return not (wm and wm.group(1).lower() in _ABBREVIATIONS)
    return False


def _strip_marker(text: str, start: int, end: int) -> int:
    """Move ``start`` past leading list numbers, bullets and stray punctuation."""
    while start < end:
        m = _LIST_MARKER_RE.match(text, start, end)
        if not m or m.end() == start:
            break
        # "2.5 cm" is a measurement, not a list marker; the lookahead already keeps it.
        start = m.end()
        while start < end and text[start] in _BLANK:
            start += 1
    return start


def _add_span(text: str, start: int, stop: int, spans: list[tuple[int, int]]) -> None:
    start, stop = trim(text, start, stop)
    start = _strip_marker(text, start, stop)
    # a lone list number ("2.") or a de-identified line ("-___") is no sentence of its own
    if stop > start and any(c.isalnum() for c in text[start:stop]):
        spans.append((start, stop))


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` inside ``text[start:end]``."""
    end = len(text) if end is None else end
    spans: list[tuple[int, int]] = []
    cur = start
    for m in _BOUNDARY_RE.finditer(text, start, end):
        if m.start() < cur:
            continue
        if not _is_boundary(text, m, end):
            continue
        stop = m.end() if m.group() != "\n" else m.start()
        _add_span(text, cur, stop, spans)
        cur = m.end()
    _add_span(text, cur, end, spans)
    return spans
