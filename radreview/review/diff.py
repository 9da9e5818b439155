"""A word diff for showing a suggested sentence against the original."""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_TOKEN = re.compile(r"\s+|[\w'-]+|[^\w\s]")

EQUAL, DELETE, INSERT = "equal", "delete", "insert"


@dataclass(frozen=True)
class Piece:
    op: str  # "equal", "delete" or "insert"
    text: str


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def word_diff(before: str, after: str) -> list[Piece]:
    """Pieces that turn ``before`` into ``after``, word by word (punctuation is its own word).

    Joining the equal and delete pieces gives ``before`` and the equal and insert pieces give
    ``after`` (equal pieces carry ``after``'s spacing: a change of whitespace alone is not a
    difference).
    """
    a, b = _tokens(before), _tokens(after)
    matcher = difflib.SequenceMatcher(
        isjunk=None, a=[t if t.strip() else " " for t in a], b=[t if t.strip() else " " for t in b],
        autojunk=False,
    )
    pieces: list[Piece] = []

    def add(op: str, text: str) -> None:
        if not text:
            return
        if pieces and pieces[-1].op == op:
            pieces[-1] = Piece(op, pieces[-1].text + text)
        else:
            pieces.append(Piece(op, text))

    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            add(EQUAL, "".join(b[j1:j2]))
        else:
            if i2 > i1:
                add(DELETE, "".join(a[i1:i2]))
            if j2 > j1:
                add(INSERT, "".join(b[j1:j2]))
    return pieces
