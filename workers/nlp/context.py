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
possible small effusion" the effusion is uncertain and the pneumothorax absent.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import lru_cache

NEGATED = "NEGATED_EXISTENCE"
POSSIBLE = "POSSIBLE_EXISTENCE"
PROBABLE = "PROBABLE_EXISTENCE"
HYPOTHETICAL = "HYPOTHETICAL"
PSEUDO = "PSEUDO"
TERMINATE = "TERMINATE"
AFFIRM = "AFFIRMED_EXISTENCE"

# (literal, category, direction, max_scope). A literal is matched on lower-cased tokens;
# longer cues win over the cues they contain ("cannot be excluded" over "not").
RADIOLOGY_RULES: tuple[tuple[str, str, str, int | None], ...] = (
    # negation, forward
    *((w, NEGATED, "FORWARD", None) for w in (
        "no", "without", "with no", "negative for", "free of", "clear of", "absence of",
        "absent", "no evidence of", "no radiographic evidence of", "no evidence for",
        "no signs of", "no sign of", "no findings of", "no findings to suggest",
        "no definite", "no convincing", "no convincing evidence of", "no visible",
        "no visualized", "no identifiable", "no significant", "no appreciable", "no obvious",
        "no large", "no acute", "no new", "no focal", "there is no", "there are no",
        "nor", "neither", "rather than", "resolution of", "interval resolution of",
        "removal of", "interval removal of", "fails to demonstrate", "no longer",
        "not demonstrate", "does not demonstrate", "no residual", "negative",
        "does not appear to be", "do not appear to be", "does not appear to represent")),
    ("not", NEGATED, "FORWARD", 4),
    # "healed fracture should not be mistaken for lung nodules"; "no pneumothorax, although the
    # sensitivity to detect a pneumothorax is diminished": the finding is not stated
    *((w, NEGATED, "FORWARD", 4) for w in (
        "not be mistaken for", "not to be mistaken for", "sensitivity to detect",
        "sensitivity for detecting", "sensitivity for detection of")),
    # "cleared left lower lobe airspace disease with persistent ...": only the next few words
    *((w, NEGATED, "FORWARD", 5) for w in ("cleared", "interval clearing of", "clearing of")),
    # negation, backward: the finding comes first
    *((w, NEGATED, "BACKWARD", None) for w in (
        "is not seen", "are not seen", "not seen", "is not identified", "are not identified",
        "not identified", "not visualized", "is not visualized", "are not visualized",
        "not demonstrated", "is not demonstrated", "not appreciated", "not evident",
        "is not evident", "not present", "is not present", "are not present", "not detected",
        "is absent", "are absent", "has resolved", "have resolved", "resolved",
        "has cleared", "have cleared", "is no longer seen", "are no longer seen",
        "no longer seen", "no longer visualized", "no longer present", "no longer evident",
        "has been removed", "have been removed", "removed", "is negative", "are negative",
        "ruled out", "has been excluded", "excluded", "not noted", "is not noted",
        "not apparent", "is not apparent", "not definitely seen", "not clearly seen",
        "not well seen", "not well-seen", "is not well-seen", ": none", "none")),
    *((w, NEGATED, "BACKWARD", 3) for w in (
        "within normal limits", "within limits of normal", "within the limits of normal",
        "within normal range", "within the normal range", "are normal", "is normal")),
    # uncertainty
    *((w, POSSIBLE, "FORWARD", None) for w in (
        "may", "might", "could", "possible", "possibly", "perhaps", "questionable",
        "question", "question of", "questioned", "query", "suspect", "suspected", "suspicious for",
        "suspicious of", "concern for", "concerning for", "worrisome for", "cannot exclude",
        "can not exclude", "cannot rule out", "can not rule out", "not exclude",
        "rule out", "r/o", "differential", "differential diagnosis", "differential includes",
        "differential considerations include", "indeterminate", "suggestion of",
        "equivocal", "uncertain", "suggestive of", "suggest", "suggests", "suggesting",
        "raises the possibility of", "raising the possibility of",
        "borderline for", "may represent", "could represent", "may reflect", "could reflect",
        "may be", "could be", "might be", "questionably", "ddx",
        "either", "or possibly", "possibility of", "in the appropriate clinical setting",
        "in the proper clinical setting", "in the right clinical setting",
        "in the correct clinical setting", "nonspecific", "non-specific")),
    *((w, POSSIBLE, "BACKWARD", None) for w in (
        "cannot be excluded", "can not be excluded", "not be excluded", "cannot be ruled out",
        "can not be ruled out", "not ruled out", "not excluded", "is not excluded",
        "are not excluded", "cannot be entirely excluded", "can not be entirely excluded",
        "cannot be completely excluded", "can not be completely excluded",
        "not entirely excluded", "is questioned", "is suspected", "are suspected",
        "is possible", "may not be", "might not be",
        "in the differential", "is in the differential", "are in the differential")),
    *((w, PROBABLE, "FORWARD", None) for w in (
        "likely", "most likely", "most suggestive of", "probable", "probably", "presumably",
        "presumed",
        "consistent with", "compatible with", "most consistent with", "in keeping with",
        "representing", "likely representing", "likely reflecting", "reflecting",
        "likely due to", "thought to represent", "favored to represent", "favor", "favored",
        "suggestive", "which likely represents", "likely represents", "represents")),
    *((w, PROBABLE, "BACKWARD", None) for w in (
        "is likely", "are likely", "is favored", "is probable")),
    # a differential names every alternative uncertain: "atelectasis versus pneumonia"
    *((w, POSSIBLE, "BIDIRECTIONAL", 6) for w in ("versus", "vs", "vs.", "?")),
    # clinical questions, not findings
    *((w, HYPOTHETICAL, "FORWARD", None) for w in (
        "evaluate for", "eval for", "evaluation for", "assess for", "to assess for",
        "assessment for", "to exclude", "exclude", "to rule out", "if", "should", "screening for",
        "correlate for", "correlate clinically for", "clinical correlation for", "correlation for",
        "correlate clinically as to", "correlate for signs of", "recommend", "recommended",
        "consider", "to document resolution", "to ensure resolution", "to assess", "to evaluate",
        "further evaluation", "if clinically indicated", "to identify", "would be helpful",
        "history of", "correlate clinically with", "clinical correlation with",
        "previously described", "previously reported", "previously seen", "described previously")),
    # look-alikes of cues that are no cue ("no change" is not a negation of the finding)
    *((w, PSEUDO, "PSEUDO", None) for w in (
        "no change", "no interval change", "no significant change",
        "no significant interval change",
        "not changed", "no change in", "without change", "without interval change",
        "not only", "not significantly changed", "without significant change",
        "without significant interval change", "without appreciable change",
        "without substantial change", "without interval change in", "no increase", "no decrease",
        "not increased", "no significant interval", "no other", "not well",
        "to suggest", "can be seen", "could be seen", "gram negative",
        "not include")),
    # scope ends for every cue
    *((w, TERMINATE, "TERMINATE", None) for w in (
        "but", "however", "although", "though", "except", "except for", "aside from",
        "apart from", "other than", "otherwise", "which", "whereas", "while", ";")),
    # an affirmation of another finding ends a forward cue ("no effusion is seen, and there is
    # a pneumothorax"), but not a backward one
    *((w, AFFIRM, "PSEUDO", None) for w in (
        "there is", "there are", "is present", "are present", "is seen", "are seen",
        "is noted", "are noted", "is again seen", "is again noted", "remains", "remain",
        "persists", "persistent", "unchanged", "stable", "with", "again", "noted", "seen",
        "identified", "demonstrated", "present", "there has been",
        "has developed", "have developed")),
)

# Among cues that are not negations, a possibility outranks a clinical question, which
# outranks a probability ("may be compatible with pneumonia" is uncertain).
_PRIORITY = (POSSIBLE, HYPOTHETICAL, PROBABLE)


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
    from medspacy.context import ConText, ConTextRule  # noqa: PLC0415

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
        elif category in (POSSIBLE, PROBABLE, HYPOTHETICAL):
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
    near as every other cue; otherwise the strongest hedge wins."""
    others = [c for c in _PRIORITY if c in cues]
    if NEGATED in cues and (not others or cues[NEGATED][0] <= min(cues[c][0] for c in others)):
        return Assertion(NEGATED, cues[NEGATED][1])
    if others:
        return Assertion(others[0], cues[others[0]][1])
    return Assertion(None, None)


def assert_targets(text: str, sentence_spans: list[tuple[int, int]],
                   targets: list[tuple[int, int]]) -> list[Assertion]:
    """ConText's verdict for each target span of ``text`` (one result per target, in order)."""
    if not targets:
        return []
    nlp, context = pipeline()
    doc = nlp.make_doc(text)
    if len(doc) < 2:
        return [Assertion(None, None) for _ in targets]
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
    results = [Assertion(None, None) for _ in targets]
    # per token span of a target: category -> (distance, cue) of its nearest cue of that kind
    nearest: dict[tuple[int, int], dict[str, tuple[int, str]]] = {}
    for target, modifier in doc._.context_graph.edges:
        m_start, m_end = modifier.modifier_span
        distance = target.start - m_end if m_end <= target.start else m_start - target.end
        cues = nearest.setdefault((target.start, target.end), {})
        if modifier.category not in cues or distance < cues[modifier.category][0]:
            cues[modifier.category] = (distance, doc[m_start:m_end].text)
    for k, span in zip(index, spans):
        cues = nearest.get((span.start, span.end))
        if cues:
            results[k] = _resolve(cues)
    return results
