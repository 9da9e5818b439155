"""Tokens as spaCy's blank English tokenizer cuts them, without spaCy.

ConText counts in tokens (a cue's max_scope, the distance to the nearest cue) and matches cues
on lower-cased tokens, so the engine's verdicts depend on where tokens begin and end. This
module cuts them the way spaCy 3's tokenizer does (documented in spaCy's "Tokenization"
usage page), reading spaCy's English data written out once to rules/tokenizer_en.json
(prefix, suffix, infix and URL expressions and the special cases; tests/support/
reference_context.py writes it, and a test checks it against the installed spaCy):

1. The text is cut at whitespace. One plain space after a word belongs to that word; any other
   run of whitespace is a chunk of its own ("\\n", a second space).
2. A chunk that is a special case ("e.g.", ":)", "can't") becomes its special tokens.
   Otherwise prefixes and suffixes are peeled off, one of each per round, until none is left
   or what is left is a special case; the rest is a special case, a URL, or is cut at its
   infixes (a hyphen between letters; an infix at the very start is not a cut).
3. Special cases that contain affix characters can only be seen after the cuts; where the
   tokens of one ("(", ":") follow each other, joined by nothing, they become its tokens.
   Longer ones first; among equal lengths the earlier one.
"""
from __future__ import annotations

import json
import re
from bisect import bisect_right
from functools import lru_cache
from pathlib import Path

DATA_FILE = Path(__file__).with_name("rules") / "tokenizer_en.json"

_DATA = json.loads(DATA_FILE.read_text(encoding="utf-8"))
_PREFIX = re.compile(_DATA["prefix"]).search
_SUFFIX = re.compile(_DATA["suffix"]).search
_INFIXES = re.compile(_DATA["infix"]).finditer
_URL = re.compile(_DATA["url"]).match
_SPECIALS: dict[str, tuple[str, ...]] = {key: tuple(pieces)
                                         for key, pieces in _DATA["specials"].items()}


def _affix_length(match: re.Match | None) -> int:
    return match.end() - match.start() if match else 0


def _peel(chunk: str, specials: bool) -> tuple[list[str], str, list[str]]:
    """(prefixes, core, suffixes outermost first) of a chunk."""
    prefixes: list[str] = []
    suffixes: list[str] = []
    last = -1
    while chunk and len(chunk) != last:
        if specials and chunk in _SPECIALS:
            break
        last = len(chunk)
        front = _affix_length(_PREFIX(chunk))
        if front and specials and chunk[front:] in _SPECIALS:
            prefixes.append(chunk[:front])
            chunk = chunk[front:]
            break
        back = _affix_length(_SUFFIX(chunk[front:]))
        # spaCy's order: a core that is a special case once the suffix is off stops the
        # peeling with the prefix still on it
        if back and specials and chunk[:-back] in _SPECIALS:
            suffixes.append(chunk[-back:])
            chunk = chunk[:-back]
            break
        if front and back:
            prefixes.append(chunk[:front])
            suffixes.append(chunk[-back:])
            chunk = chunk[front:-back]
        elif front:
            prefixes.append(chunk[:front])
            chunk = chunk[front:]
        elif back:
            suffixes.append(chunk[-back:])
            chunk = chunk[:-back]
    return prefixes, chunk, suffixes


def _split_core(core: str, specials: bool) -> list[str]:
    if specials and core in _SPECIALS:
        return list(_SPECIALS[core])
    if _URL(core):
        return [core]
    pieces = []
    start = 0
    for match in _INFIXES(core):
        if match.start() == 0:
            continue
        if match.start() != start:
            pieces.append(core[start:match.start()])
        if match.end() != match.start():
            pieces.append(core[match.start():match.end()])
        start = match.end()
    if core[start:]:
        pieces.append(core[start:])
    return pieces


@lru_cache(maxsize=65536)
def _chunk_pieces(chunk: str, specials: bool = True) -> tuple[str, ...]:
    if specials and chunk in _SPECIALS:
        return _SPECIALS[chunk]
    prefixes, core, suffixes = _peel(chunk, specials)
    pieces = prefixes + (_split_core(core, specials) if core else [])
    return tuple(pieces + suffixes[::-1])


def _pieces(text: str, specials: bool) -> list[tuple[int, int, int]]:
    """(start, end, end with the absorbed space) of each token before step 3."""
    tokens: list[tuple[int, int, int]] = []

    def add(start: int, end: int) -> None:
        for piece in _chunk_pieces(text[start:end], specials):
            tokens.append((start, start + len(piece), start + len(piece)))
            start += len(piece)

    start = 0
    in_space = text[:1].isspace()
    for i, char in enumerate(text):
        if char.isspace() == in_space:
            continue
        if start < i:
            add(start, i)
        if char == " ":
            tokens[-1] = (tokens[-1][0], tokens[-1][1], i + 1)
            start = i + 1
        else:
            start = i
        in_space = not in_space
    if start < len(text):
        add(start, len(text))
    return tokens


def _affix_specials() -> dict[tuple[str, ...], str]:
    """Special cases that the cuts can split, by the tokens they are split into."""
    found = {}
    for key in _SPECIALS:
        if _PREFIX(key) or _SUFFIX(key) or any(_INFIXES(key)) or " " in key:
            found[tuple(key[a:b] for a, b, _ in _pieces(key, specials=False))] = key
    return found


_BY_PIECES = _affix_specials()
_FIRST_PIECES = {pieces[0] for pieces in _BY_PIECES}
_LONGEST = max(map(len, _BY_PIECES))


def _join_specials(text: str, tokens: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    found = []  # (start token, end token)
    for i, (start, end, _) in enumerate(tokens):
        if text[start:end] not in _FIRST_PIECES:
            continue
        for j in range(i + 1, min(i + _LONGEST, len(tokens)) + 1):
            if tuple(text[a:b] for a, b, _ in tokens[i:j]) in _BY_PIECES:
                found.append((i, j))
    if not found:
        return tokens
    taken: set[int] = set()
    chosen = []
    for i, j in sorted(found, key=lambda span: (span[0] - span[1], span[0])):
        if i not in taken and j - 1 not in taken:
            chosen.append((i, j))
        taken.update(range(i, j))
    replace = {}
    for i, j in chosen:
        start, end = tokens[i][0], tokens[j - 1][1]
        key = text[start:end]
        if key in _SPECIALS:  # not when the pieces stand apart in the text
            pieces = []
            for piece in _SPECIALS[key]:
                pieces.append((start, start + len(piece), start + len(piece)))
                start += len(piece)
            pieces[-1] = (pieces[-1][0], pieces[-1][1], tokens[j - 1][2])
            replace[i] = (j, pieces)
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(tokens):
        if i in replace:
            j, pieces = replace[i]
            out.extend(pieces)
            i = j
        else:
            out.append(tokens[i])
            i += 1
    return out


def tokenize(text: str) -> list[tuple[int, int, int]]:
    """(start, end, end with its trailing space) of each token of ``text``, in order."""
    return _join_specials(text, _pieces(text, specials=True))


def token_at(tokens: list[tuple[int, int, int]], starts: list[int], char: int) -> int:
    """The index of the token whose text or trailing space holds ``char`` (-1: none);
    ``starts`` are the tokens' start offsets."""
    i = bisect_right(starts, char) - 1
    return i if i >= 0 and char < tokens[i][2] else -1
