"""Negation and uncertainty with ConText (Harkema et al. 2009), tuned for radiology wording.

The engine runs ConText itself, in plain Python: tokens as spaCy's blank English tokenizer
cuts them (workers/nlp/tokenizer.py), cues, scopes and links as medspacy's ConText sets them
(workers/nlp/context_graph.py), with the rules below instead of medspacy's default rule file,
which was written for clinical notes ("history", "free", "resolved" forward, "decline", ...)
and misses radiology's backward cues ("pneumothorax is not seen", "effusion has resolved").
Neither spaCy nor medspacy is imported: their start-up (several seconds of torch, thinc, nltk,
scikit-learn imports) was most of a labeling command's run. The spaCy + medspacy pipeline the
verdicts were tuned on is kept as the tests' reference (tests/support/reference_context.py),
and a test asserts identical verdicts on a corpus of sentences. Targets are not found here: the
caller gives character spans (found by the vocabulary's compiled regular expression) and
sentence spans, and gets one ``Assertion`` per target back.

Scope: a cue reaches to the end (forward) or start (backward) of its sentence, stops at a
terminator ("but", "however", ";", ...) and at a cue of the same kind; across a list ("no focal
consolidation, pleural effusion, or pneumothorax") every item is in scope. When cues of
different kinds reach one target, the nearest wins (ties: negation), so in "no pneumothorax,
possible small effusion" the effusion is uncertain and the pneumothorax absent; a negation wins
over a history wherever it stands ("no history of smoking").
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workers.nlp.context_graph import (
    FORWARD_WAYS,
    Cue,
    CueIndex,
    Modifier,
    link,
    narrow_scopes,
    place,
)
from workers.nlp.tokenizer import token_at, tokenize

NEGATED = "NEGATED_EXISTENCE"
POSSIBLE = "POSSIBLE_EXISTENCE"
PROBABLE = "PROBABLE_EXISTENCE"
HYPOTHETICAL = "HYPOTHETICAL"
PSEUDO = "PSEUDO"
TERMINATE = "TERMINATE"
AFFIRM = "AFFIRMED_EXISTENCE"

HISTORICAL = "HISTORICAL"

RULES_FILE = Path(__file__).with_name("rules") / "context_rules.tsv"
_CATEGORIES = {"negated": NEGATED, "possible": POSSIBLE, "probable": PROBABLE,
               "hypothetical": HYPOTHETICAL, "historical": HISTORICAL, "pseudo": PSEUDO,
               "terminate": TERMINATE, "affirm": AFFIRM}
_DIRECTIONS = ("FORWARD", "BACKWARD", "BIDIRECTIONAL", "PSEUDO", "TERMINATE")
_COLUMNS = ["literal", "category", "direction", "max_scope", "source"]


def load_rules(path: Path = RULES_FILE) -> tuple[tuple[str, str, str, int | None], ...]:
    """(literal, category, direction, max_scope) of every rule of the TSV file at ``path``:
    the rules are data, so a new cue is one line with its source, not a code change."""
    rules = []
    header = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if header is None:
            if fields != _COLUMNS:
                raise ValueError(f"{path}:{number}: header must be {' '.join(_COLUMNS)}")
            header = fields
            continue
        if len(fields) != len(_COLUMNS) or not fields[0] or not fields[4].strip():
            raise ValueError(f"{path}:{number}: want {len(_COLUMNS)} tab-separated fields, "
                             "a literal and a source")
        literal, category, direction, scope, _ = fields
        if category not in _CATEGORIES or direction.upper() not in _DIRECTIONS:
            raise ValueError(f"{path}:{number}: unknown category or direction {fields[1:3]}")
        rules.append((literal, _CATEGORIES[category], direction.upper(),
                       int(scope) if scope else None))
    return tuple(rules)


# (literal, category, direction, max_scope). A literal is matched on lower-cased tokens;
# longer cues win over the cues they contain ("cannot be excluded" over "not").
RADIOLOGY_RULES = load_rules()

# Among cues that are not negations, a possibility outranks a clinical question, which
# outranks a probability ("may be compatible with pneumonia" is uncertain); a history comes
# after a clinical question (findings read both as uncertain).
_PRIORITY = (POSSIBLE, HYPOTHETICAL, HISTORICAL, PROBABLE)


@dataclass(frozen=True)
class Assertion:
    """What ConText says about one target: the winning cue's category and text, or None."""

    category: str | None
    cue: str | None


def rule_conflicts() -> list[str]:
    """Literals listed twice: one match is kept per span, so a second rule for the same words
    would silently never fire (tested to stay empty)."""
    seen: dict[str, tuple[str, str]] = {}
    conflicts = []
    for literal, category, direction, _ in RADIOLOGY_RULES:
        key = literal.lower()
        if key in seen:
            conflicts.append(f"{literal!r}: {seen[key]} and {(category, direction)}")
        seen[key] = (category, direction)
    return conflicts


def resolve(cues: dict[str, tuple[int, str]]) -> Assertion:
    """One verdict from the cues that reach a target: a negation wins when it is at least as
    near as every hedge, and over a history wherever it is (a history says when a finding was,
    the denial that it is not: "no history of smoking", "fails to reveal the previously seen
    nodule"); otherwise the strongest hedge wins."""
    others = [c for c in _PRIORITY if c in cues]
    hedges = [c for c in others if c != HISTORICAL]
    if NEGATED in cues and (not hedges or cues[NEGATED][0] <= min(cues[c][0] for c in hedges)):
        return Assertion(NEGATED, cues[NEGATED][1])
    if others:
        return Assertion(others[0], cues[others[0]][1])
    return Assertion(None, None)


def assert_targets(text: str, sentence_spans: list[tuple[int, int]],
                   targets: list[tuple[int, int]]) -> list[Assertion]:
    """ConText's verdict for each target span of ``text`` (one result per target, in order)."""
    if not targets:
        return []
    owner = [next((k for k, (start, end) in enumerate(sentence_spans)
                   if start <= a and b <= end), None) for a, b in targets]
    if None in owner:  # a target across sentences: read the whole text at once
        return list(_verdicts(text, tuple(sentence_spans), tuple(targets)))
    # A cue's scope ends at its sentence, so a verdict depends on its sentence alone, and a
    # sentence's verdicts are kept: the correction's candidate rewrites of a report differ from
    # it in one sentence, and only that sentence is read again.
    results: list[Assertion] = [Assertion(None, None)] * len(targets)
    for k in dict.fromkeys(owner):
        start, end = sentence_spans[k]
        mine = [i for i, o in enumerate(owner) if o == k]
        found = _verdicts(text[start:end], ((0, end - start),),
                          tuple((targets[i][0] - start, targets[i][1] - start) for i in mine))
        for i, assertion in zip(mine, found):
            results[i] = assertion
    return results


def _cue(literal: str, category: str, direction: str, max_scope: int | None) -> Cue:
    """A rule as ConText uses it; ``terminated_by`` is the project's policy: a negation stops
    at a hedge (a forward one also at an affirmation), a hedge or history at a negation."""
    if category == NEGATED:
        stops = {POSSIBLE, PROBABLE, AFFIRM} if direction == "FORWARD" else {POSSIBLE, PROBABLE}
    elif category in (POSSIBLE, PROBABLE, HYPOTHETICAL, HISTORICAL):
        stops = {NEGATED}
    else:
        stops = set()
    # cut after lower-casing: the cut may depend on case (special cases such as "Dr.")
    lowered = literal.lower()
    words = tuple(lowered[start:end] for start, end, _ in tokenize(lowered))
    return Cue(words, category, direction, max_scope, frozenset(stops))


@lru_cache(maxsize=1)
def cue_index() -> CueIndex:
    """The process's one index of the rules' cues (built on first use)."""
    return CueIndex([_cue(*rule) for rule in RADIOLOGY_RULES])


def _token_span(tokens: list[tuple[int, int, int]], starts: list[int], start: int,
                end: int) -> tuple[int, int] | None:
    """The tokens that the characters start..end touch (a start on a token's trailing space
    moves to the next token); None when either end is outside the text."""
    first = token_at(tokens, starts, start)
    last = token_at(tokens, starts, end - 1)
    if first < 0 or last < 0:
        return None
    if start == tokens[first][1]:
        first += 1
    return first, last + 1


@lru_cache(maxsize=32768)
def _verdicts(text: str, sentence_spans: tuple[tuple[int, int], ...],
              targets: tuple[tuple[int, int], ...]) -> tuple[Assertion, ...]:
    tokens = tokenize(text)
    results = [Assertion(None, None)] * len(targets)
    if len(tokens) < 2:
        return tuple(results)
    starts = [start for start, _, _ in tokens]
    # a sentence begins at the token holding its first character
    firsts = {0}
    for start, _ in sentence_spans:
        span = _token_span(tokens, starts, start, start + 1)
        if span is not None:
            firsts.add(span[0])
    bounds = sorted(firsts) + [len(tokens)]
    sentence_of = [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)
                   for _ in range(bounds[k], bounds[k + 1])]
    kept = [(i, span) for i, (a, b) in enumerate(targets)
            if (span := _token_span(tokens, starts, a, b)) is not None]
    spans = [span for _, span in kept]
    modifiers = place(cue_index().find([text[a:b].lower() for a, b, _ in tokens]), sentence_of)
    narrow_scopes(modifiers)
    link(modifiers, spans)
    # per token span of a target: category -> (distance, cue) of its nearest cue of that kind
    nearest: dict[tuple[int, int], dict[str, tuple[int, str]]] = {}

    def reach(span: tuple[int, int], modifier: Modifier, distance: int) -> None:
        cues = nearest.setdefault(span, {})
        category = modifier.cue.category
        if category not in cues or distance < cues[category][0]:
            cues[category] = (distance, text[tokens[modifier.start][0]:tokens[modifier.end - 1][1]])

    for modifier in modifiers:
        for k in modifier.targets:
            span = spans[k]
            reach(span, modifier, span[0] - modifier.end if modifier.end <= span[0]
                  else modifier.start - span[1])
    # ConText lets no cue modify a target it overlaps. A forward cue that takes in a target's
    # first words ("no acute" of "acute cardiopulmonary abnormality") still reaches the rest
    # of it, so a span is read the same whether or not its leading adjective is part of it.
    for modifier in modifiers:
        if modifier.cue.direction not in FORWARD_WAYS:
            continue
        for span in spans:
            if modifier.start <= span[0] < modifier.end < span[1] \
                    and modifier.scope_start <= modifier.end < modifier.scope_end:
                reach(span, modifier, 0)
    for (k, _), span in zip(kept, spans):
        cues = nearest.get(span)
        if cues:
            results[k] = resolve(cues)
    return tuple(results)
