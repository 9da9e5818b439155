"""ConText's cues, their scopes and the targets they reach, on token positions.

The ConText algorithm (Harkema et al. 2009, "ConText: an algorithm for determining negation,
experiencer, and temporal status from clinical reports"), with the conventions of medspacy's
implementation that the engine's verdicts were tuned on:

* A cue is a phrase matched on lower-cased tokens. Of two matches that overlap, the longer
  stays; matches are taken in pairs, left to right, and the pass is repeated until one keeps
  every match ("no evidence of" over "evidence of", a pseudo cue over the cue inside it).
* A cue's scope runs from the cue to the end (forward) or start (backward) of its sentence, or
  both ways (bidirectional, pseudo, terminate), cut to ``max_scope`` tokens on each side.
* Every pair of cues whose scopes overlap is looked at both ways: a terminate cue, a cue of the
  same category or one of a category listed in ``terminated_by`` ends the other's scope where
  it starts (forward) or ends (backward).
* A cue reaches a target when the target overlaps its scope and not the cue itself; pseudo and
  terminate cues reach nothing.

Spans are (start, end) token positions, end excluded. ``overlaps`` is deliberately one-sided:
it asks whether either end of ``b`` falls inside ``a``, as medspacy does, so a span strictly
inside ``b`` does not "overlap" it; the verdicts depend on that.
"""
from __future__ import annotations

from dataclasses import dataclass, field

FORWARD_WAYS = ("FORWARD", "BIDIRECTIONAL")
BACKWARD_WAYS = ("BACKWARD", "BIDIRECTIONAL")
INERT = ("PSEUDO", "TERMINATE")


@dataclass(frozen=True)
class Cue:
    """One rule: its words (lower-cased tokens), category, direction and reach."""

    words: tuple[str, ...]
    category: str
    direction: str
    max_scope: int | None
    terminated_by: frozenset[str]


@dataclass
class Modifier:
    """A cue found in a text: its token span and the span of tokens it reaches."""

    cue: Cue
    start: int
    end: int
    scope_start: int = 0
    scope_end: int = 0
    targets: list[int] = field(default_factory=list)


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether b's first or last token falls inside a (one-sided; see the module's doc)."""
    return a[0] <= b[0] < a[1] or a[0] < b[1] <= a[1]


class CueIndex:
    """The rules' cues, looked up by their first word."""

    def __init__(self, cues: list[Cue]) -> None:
        self.by_first: dict[str, list[Cue]] = {}
        for cue in cues:
            self.by_first.setdefault(cue.words[0], []).append(cue)

    def find(self, words: list[str]) -> list[tuple[int, int, Cue]]:
        """Every cue occurrence in ``words`` (lower-cased tokens), overlapping ones pruned."""
        found = []
        for i, word in enumerate(words):
            for cue in self.by_first.get(word, ()):
                end = i + len(cue.words)
                if tuple(words[i:end]) == cue.words:
                    found.append((i, end, cue))
        return keep_longer(found)


def keep_longer(found: list[tuple[int, int, Cue]]) -> list[tuple[int, int, Cue]]:
    """Pairs of neighbouring overlapping matches keep their longer one (the earlier on a tie),
    pass after pass, until a pass drops nothing; the result is in text order."""
    while True:
        ordered = sorted(found, key=lambda match: (match[0], match[1]))
        kept = []
        i = 0
        while i < len(ordered):
            first = ordered[i]
            second = ordered[i + 1] if i + 1 < len(ordered) else None
            if second is not None and overlaps(first[:2], second[:2]):
                kept.append(second if second[1] - second[0] > first[1] - first[0] else first)
                i += 2
            else:
                kept.append(first)
                i += 1
        if len(kept) == len(ordered):
            return kept
        found = kept


def place(found: list[tuple[int, int, Cue]],
          sentence_of: list[tuple[int, int]]) -> list[Modifier]:
    """Modifiers with their first scopes: the sentence of the cue's first token
    (``sentence_of[token]``) on the cue's side(s), cut to ``max_scope`` tokens."""
    modifiers = []
    for start, end, cue in found:
        first, last = sentence_of[start]
        reach = cue.max_scope
        if cue.direction == "FORWARD":
            scope = (end, last if reach is None or last - end <= reach else end + reach)
        elif cue.direction == "BACKWARD":
            scope = (first if reach is None or start - first <= reach else start - reach, start)
        else:
            scope = (first if reach is None or start - first <= reach else start - reach,
                     last if reach is None or last - end <= reach else end + reach)
        modifiers.append(Modifier(cue, start, end, *scope))
    return modifiers


def _narrow(modifier: Modifier, other: Modifier) -> None:
    """End ``modifier``'s scope at ``other`` when other is a cue that stops it."""
    if not overlaps((modifier.scope_start, modifier.scope_end),
                    (other.scope_start, other.scope_end)):
        return
    cue, stopper = modifier.cue, other.cue
    if cue.direction == "TERMINATE":
        return
    if stopper.direction != "TERMINATE" and stopper.category != cue.category \
            and stopper.category not in cue.terminated_by:
        return
    if cue.direction in FORWARD_WAYS and other.start > modifier.start:
        modifier.scope_end = min(modifier.scope_end, other.start)
    if cue.direction in BACKWARD_WAYS and other.end < modifier.end:
        modifier.scope_start = max(modifier.scope_start, other.end)


def narrow_scopes(modifiers: list[Modifier]) -> None:
    """Every pair, in text order, both ways round (the order matters: a scope already cut
    may no longer overlap the next cue's)."""
    for i, modifier in enumerate(modifiers):
        for other in modifiers[i + 1:]:
            _narrow(modifier, other)
            _narrow(other, modifier)


def link(modifiers: list[Modifier], targets: list[tuple[int, int]]) -> None:
    """Fill each modifier's ``targets`` with the indexes of the targets it reaches."""
    for index, target in enumerate(targets):
        for modifier in modifiers:
            if modifier.cue.direction in INERT \
                    or overlaps((modifier.start, modifier.end), target):
                continue
            if overlaps((modifier.scope_start, modifier.scope_end), target):
                modifier.targets.append(index)
