"""The three stages with the built-in rule engine: detect, localize, correct.

Stage 1 (detect) scores every image sentence from the judge's checks (contradictions, sides,
impression against findings, out-of-domain terms, what the library never writes), from the
comparative detector's finding (a comparison in a study with no prior exam) and from one check
of its own: an affirmative list joined by "or" ("Consolidation, effusion or pneumothorax."),
which reads as a denial that lost its "no" unless a hedge explains it. A sentence's score is
the noisy-OR of its signals; the report has an error when the best score reaches
``DETECT_THRESHOLD``.

Stage 2 (localize) ranks the sentences that reach it, best first.

Stage 3 (correct) proposes a replacement from what flagged the sentence:

* a substituted term -> the library's wording for that place in sentences worded like this
  one ("No pleural effusion or ___." -> "pneumothorax"), else the term removed from its list,
  else the sentence removed;
* a polarity problem -> the library's own opposite-polarity wording of the sentence when it
  has one, else the most idiomatic of the generic negations (or affirmations), ranked by the
  library's trigram model;
* a side conflict -> the sides swapped;
* a comparison without a prior exam -> the sentence without the comparison.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from workers.correction.rewrite import (
    affirmations_of,
    apply_tokens,
    negations_of,
    replace_span,
    swap_sides,
)
from workers.judge import comparative
from workers.judge.checks import (
    CONTRADICTION,
    IMPRESSION_VS_FINDINGS,
    LATERALITY,
    RULE_OUT_OF_DOMAIN,
    UNSUPPORTED,
    Issue,
)
from workers.library.slots import slot_fills
from workers.library.stats import tokens_of
from workers.nlp import extract_findings, harm_of
from workers.nlp.findings import ABSENT, PRESENT
from workers.nlp.polarity import negation_count
from workers.nlp.report import ReportContext
from workers.nlp.vocabulary import CONCEPT_RE
from workers.types import Harm

DETECT_THRESHOLD = 0.5
DISJUNCTION = "disjunction"
COMPARATIVE = "comparative"

_HEDGE_RE = re.compile(r"\b(?:may|might|could|possibl\w*|probabl\w*|likely|versus|vs|"
                       r"question\w*|suspect\w*|concern\w*|suggest\w*|represent\w*|reflect\w*|"
                       r"either|differential|consider\w*|favou?r\w*|cannot|can not|"
                       r"not excluded|or other|and/or)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Signal:
    """One reason to suspect a sentence."""

    kind: str  # a judge rule, "disjunction" or "comparative"
    confidence: float
    explanation: str
    issue: Issue | None = None
    suggestion: str | None = None


@dataclass
class SentenceScore:
    index: int
    signals: list[Signal] = field(default_factory=list)

    @property
    def score(self) -> float:
        remaining = 1.0
        for signal in self.signals:
            remaining *= 1.0 - signal.confidence
        return 1.0 - remaining

    @property
    def top(self) -> Signal:
        return max(self.signals, key=lambda s: s.confidence)


@dataclass(frozen=True)
class Fix:
    """Stage 3's proposal: the replacement sentence ("" = remove it) and how it was made."""

    text: str
    method: str  # library_wording, library_polarity, negation, affirmation, sides, removal
    detail: str
    support: int = 0


def disjunction_signals(ctx: ReportContext) -> list[tuple[int, Signal]]:
    """Affirmative sentences that list two or more findings joined by "or" with no hedge."""
    out = []
    for i in ctx.image_sentences:
        sentence = ctx.sentence(i).text
        stated = [f for f in ctx.findings.get(i, []) if f.status == PRESENT and not f.implied]
        if len({f.observation for f in stated}) < 2 or not re.search(r"\bor\b", sentence, re.I):
            continue
        if any(f.status == ABSENT and not f.implied for f in ctx.findings.get(i, [])):
            continue
        if _HEDGE_RE.search(sentence):
            continue
        names = ", ".join(dict.fromkeys(f.text.lower() or f.observation for f in stated))
        out.append((i, Signal(DISJUNCTION, 0.5,
                              f"The sentence affirms a list joined by 'or' ({names}), the "
                              "shape of a denial that lost its 'no'.")))
    return out


def comparison_signals(ctx: ReportContext) -> list[tuple[int, Signal]]:
    """Comparisons with a prior exam in a study that has none (the comparative detector's
    finding, with its explanation, so the combination aligns the two)."""

    return [(d.sentence_index, Signal(COMPARATIVE, d.confidence, d.explanation, None,
                                      d.suggestion)) for d in comparative.detect(ctx)]


def score_sentences(ctx: ReportContext, issues: list[Issue]) -> list[SentenceScore]:
    """Stage 1's per-sentence scores, best first."""
    scores: dict[int, SentenceScore] = {}
    for issue in issues:
        scores.setdefault(issue.sentence, SentenceScore(issue.sentence)).signals.append(
            Signal(issue.rule, issue.confidence, issue.explanation, issue))
    for index, signal in disjunction_signals(ctx) + comparison_signals(ctx):
        scores.setdefault(index, SentenceScore(index)).signals.append(signal)
    return sorted(scores.values(), key=lambda s: (-s.score, s.index))


# --- stage 3 -------------------------------------------------------------------------------


def _single_finding(words: str) -> bool:
    """A wording that names exactly one finding of the vocabulary (a substituted term was one
    mention, so its replacement is one mention, not a list)."""
    return len(CONCEPT_RE.findall(words.lower())) == 1 and not re.search(r"\b(?:or|and)\b",
                                                                         words)


def _stated_elsewhere(ctx: ReportContext, index: int) -> set[str]:
    """Observations other sentences of the same section already state."""
    section = ctx.sentence(index).section
    return {f.observation for i, items in ctx.findings.items() if i != index
            and ctx.sentence(i).section == section for f in items if not f.implied}


def _term_fix(ctx: ReportContext, index: int, issue: Issue) -> Fix | None:
    sentence = ctx.sentence(index).text
    if issue.start is None or issue.end is None:
        return None
    elsewhere = _stated_elsewhere(ctx, index)

    def accept(words: str) -> bool:
        if not _single_finding(words):
            return False
        return not (_observations(words) & elsewhere)

    for fill in slot_fills(ctx, index, issue.start, issue.end, widen=1, widen_left=2,
                           accept=accept):
        words = " ".join(fill.words)
        if _repeats(sentence, fill.start, fill.end, words):
            continue
        where = " (also in a similar report)" if fill.nearby else ""
        return Fix(replace_span(sentence, fill.start, fill.end, words), "library_wording",
                   f"library sentences worded like this one read '{words}' there "
                   f"({fill.count} time{'s' if fill.count != 1 else ''}{where})", fill.count)
    without = replace_span(sentence, issue.start, issue.end, "")
    if len(tokens_of(without)) >= 2 and CONCEPT_RE.search(without.lower()):
        return Fix(without, "removal", f"'{issue.term}' removed")
    return Fix("", "removal", "the sentence removed")


def _observations(text: str) -> set[str]:

    return {f.observation for f in extract_findings(text) if not f.implied}


def _repeats(sentence: str, start: int, end: int, words: str) -> bool:
    rest = (sentence[:start] + " " + sentence[end:]).lower()
    return any(m.group() in rest for m in CONCEPT_RE.finditer(words.lower()))


def _polarity_fix(ctx: ReportContext, index: int, deny: bool) -> Fix | None:
    sentence = ctx.sentence(index).text
    polarity = ctx.polarity(index)
    if polarity.variant is not None:
        return Fix(apply_tokens(sentence, polarity.variant), "library_polarity",
                   f"the library writes '{' '.join(polarity.variant)}' "
                   f"{polarity.variant_count} time{'s' if polarity.variant_count != 1 else ''}",
                   polarity.variant_count)
    tokens = ctx.tokens(index)
    candidates = negations_of(tokens) if deny else affirmations_of(tokens)
    if not candidates:
        return None
    if ctx.library is not None:
        stats = ctx.library.stats
        best = max(candidates, key=lambda t: (stats.count(t, ctx.exclude),
                                              stats.fluency(t, ctx.exclude)))
    else:
        best = candidates[0]
    return Fix(apply_tokens(sentence, best), "negation" if deny else "affirmation",
               "the most idiomatic " + ("denial" if deny else "affirmation")
               + " of the sentence")


def correct_sentence(ctx: ReportContext, scored: SentenceScore) -> Fix:
    """Stage 3 for the localized sentence."""
    index = scored.index
    sentence = ctx.sentence(index).text
    for signal in sorted(scored.signals, key=lambda s: -s.confidence):
        issue = signal.issue
        if issue is not None and issue.term and issue.rule in (RULE_OUT_OF_DOMAIN, UNSUPPORTED) \
                and issue.start is not None:
            fix = _term_fix(ctx, index, issue)
            if fix:
                return fix
        if signal.kind == COMPARATIVE and signal.suggestion is not None:
            return Fix(signal.suggestion, "comparison_removed",
                       "the comparison with a prior exam removed")
        if signal.kind == LATERALITY and issue is not None:
            swapped = swap_sides(sentence)
            if swapped:
                return Fix(swapped, "sides", "left and right swapped")
        if signal.kind in (CONTRADICTION, IMPRESSION_VS_FINDINGS, UNSUPPORTED, DISJUNCTION):
            deny = _states_present(ctx, index, issue)
            fix = _polarity_fix(ctx, index, deny)
            if fix:
                return fix
    return Fix("", "removal", "the sentence removed")


def _states_present(ctx: ReportContext, index: int, issue: Issue | None) -> bool:
    """Whether the sentence's suspect claim is an affirmation (so the fix denies it)."""
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if issue is not None and issue.observation:
        for f in findings:
            if f.observation == issue.observation:
                return f.status != ABSENT
    return negation_count(ctx.tokens(index)) == 0


def harm_for(ctx: ReportContext, index: int, signal: Signal) -> Harm:
    """The harm of the finding the signal is about, else of the sentence's worst finding."""
    if signal.issue is not None:
        return signal.issue.harm
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if not findings:
        return Harm.LOW
    return max((harm_of(f.observation, f.status) for f in findings), key=lambda h: h.rank)


def confidence_band(score: float) -> float:
    """A stage-1 score as a detection's confidence (never a certainty)."""
    return round(min(0.99, max(0.0, score)), 3)


__all__ = ["DETECT_THRESHOLD", "Fix", "SentenceScore", "Signal", "correct_sentence",
           "disjunction_signals", "harm_for", "score_sentences"]
