"""Negation and uncertainty with medspacy's ConText, tuned for radiology wording.

One spaCy pipeline for the process: a blank English tokenizer (no model to download) and the
ConText component with the rules below instead of medspacy's default rule file, which was
written for clinical notes ("history", "free", "resolved" forward, "decline", ...) and misses
radiology's backward cues ("pneumothorax is not seen", "effusion has resolved"). Targets are
not found by spaCy: the caller gives character spans (found by the vocabulary's compiled
regular expression) and sentence spans, and gets one ``Assertion`` per target back.

Scope: a cue reaches to the end (forward) or start (backward) of its sentence, stops at a
terminator ("but", "however", ";", ...) and at a cue of the same kind; across a list ("no focal
consolidation, pleural effusion, or pneumothorax") every item is in scope. When cues of
different kinds reach one target, the nearest wins (ties: negation), so in "no pneumothorax,
possible small effusion" the effusion is uncertain and the pneumothorax absent; a negation wins
over a history wherever it stands ("no history of smoking").
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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
    """Literals listed twice: spaCy keeps one match per span, so a second rule for the same
    words would silently never fire (tested to stay empty)."""
    seen: dict[str, tuple[str, str]] = {}
    conflicts = []
    for literal, category, direction, _ in RADIOLOGY_RULES:
        key = literal.lower()
        if key in seen:
            conflicts.append(f"{literal!r}: {seen[key]} and {(category, direction)}")
        seen[key] = (category, direction)
    return conflicts


def _drop_record(record: logging.LogRecord) -> bool:
    return False


@lru_cache(maxsize=1)
def pipeline():
    """The process's one tokenizer + ConText pipeline (built on first use, ~0.2 s)."""
    # A filter, not `disabled` or a level: Django's and Celery's logging set-up reset those on
    # loggers that already exist, and PyRuSH warns about every sentence it splits oddly.
    logging.getLogger("PyRuSH").addFilter(_drop_record)
    import spacy  # noqa: PLC0415 - spaCy and medspacy load only when the engine first runs
    from medspacy.context import ConText, ConTextRule  # noqa: PLC0415 - defer medspacy

    nlp = spacy.blank("en")
    context = ConText(nlp, rules=None, input_span_type="group", span_group_name="targets",
                      prune_on_modifier_overlap=True, prune_on_target_overlap=False,
                      span_attrs=None)
    rules = []
    for literal, category, direction, max_scope in RADIOLOGY_RULES:
        terminated_by = None
        if category == NEGATED and direction == "FORWARD":
            terminated_by = {POSSIBLE, PROBABLE, AFFIRM}
        elif category == NEGATED:
            terminated_by = {POSSIBLE, PROBABLE}
        elif category in (POSSIBLE, PROBABLE, HYPOTHETICAL, HISTORICAL):
            terminated_by = {NEGATED}
        rules.append(ConTextRule(literal, category, direction=direction, max_scope=max_scope,
                                 terminated_by=terminated_by))
    # Every cue is a phrase, so ConText's token Matcher would be empty and spaCy would warn
    # (W036) on every document; one token pattern that cannot match keeps it quiet.
    rules.append(ConTextRule("<no cue>", PSEUDO, direction="PSEUDO",
                             pattern=[{"ORTH": "\u2400no-cue\u2400"}]))
    context.add(rules)
    return nlp, context


def _resolve(cues: dict[str, tuple[int, str]]) -> Assertion:
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


@lru_cache(maxsize=32768)
def _verdicts(text: str, sentence_spans: tuple[tuple[int, int], ...],
              targets: tuple[tuple[int, int], ...]) -> tuple[Assertion, ...]:
    nlp, context = pipeline()
    doc = nlp.make_doc(text)
    if len(doc) < 2:
        return tuple(Assertion(None, None) for _ in targets)
    starts = {0}
    for start, _ in sentence_spans:
        span = doc.char_span(start, start + 1, alignment_mode="expand")
        if span is not None:
            starts.add(span.start)
    for i in starts:
        doc[i].is_sent_start = True
    if len(doc) - 1 not in starts:
        # one explicit non-start marks the boundaries as set for spaCy
        doc[len(doc) - 1].is_sent_start = False
    spans = []
    index = []
    for i, (start, end) in enumerate(targets):
        span = doc.char_span(start, end, label="FINDING", alignment_mode="expand")
        if span is not None:
            spans.append(span)
            index.append(i)
    doc.spans["targets"] = spans
    context(doc)
    graph = doc._.context_graph
    results = [Assertion(None, None) for _ in targets]
    # per token span of a target: category -> (distance, cue) of its nearest cue of that kind
    nearest: dict[tuple[int, int], dict[str, tuple[int, str]]] = {}

    def reach(target: tuple[int, int], modifier, distance: int) -> None:
        m_start, m_end = modifier.modifier_span
        cues = nearest.setdefault(target, {})
        if modifier.category not in cues or distance < cues[modifier.category][0]:
            cues[modifier.category] = (distance, doc[m_start:m_end].text)

    for target, modifier in graph.edges:
        m_start, m_end = modifier.modifier_span
        reach((target.start, target.end),
              modifier, target.start - m_end if m_end <= target.start else m_start - target.end)
    # ConText lets no cue modify a target it overlaps. A forward cue that takes in a target's
    # first words ("no acute" of "acute cardiopulmonary abnormality") still reaches the rest
    # of it, so a span is read the same whether or not its leading adjective is part of it.
    for modifier in graph.modifiers:
        if modifier.direction not in ("FORWARD", "BIDIRECTIONAL"):
            continue
        m_start, m_end = modifier.modifier_span
        scope_start, scope_end = modifier.scope_span
        for span in spans:
            if m_start <= span.start < m_end < span.end and scope_start <= m_end < scope_end:
                reach((span.start, span.end), modifier, 0)
    for k, span in zip(index, spans):
        cues = nearest.get((span.start, span.end))
        if cues:
            results[k] = _resolve(cues)
    return tuple(results)
