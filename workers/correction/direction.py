"""Which way a correction may go: never delete a true finding to agree with a summary.

When two sentences disagree and a fix would make a finding that a sentence states present
absent (by negating the sentence, deleting it, or deleting the finding's words), the fix is
made automatically only when **the report's own detailed text** gives the reason:

* **own words** — what is wrong are the sentence's own words, not the finding: a term a chest
  radiograph cannot show in a finding's place (only the term's words go), or the shape of a
  denial that lost its "no" (an affirmed list joined by "or");
* **a denial's wording** — the sentence is, word for word, what reference reports write as a
  denial (and never as written), it gives the finding no size or degree (which only a present
  finding has: "There is a large right pleural effusion" is a description, "There is focal
  airspace consolidation" a template that lost its "no"), and no other sentence of the report
  states the finding;
* **detailed text** — another sentence of the detailed part of the report (FINDINGS, or the
  unlabelled body) denies the same finding in so many words; for a sentence of a summary
  section (IMPRESSION, wet read) any such denial there, a normal statement included, because
  the summary is aligned with the detailed findings, never the other way round.

A normal statement ("no acute cardiopulmonary process", "lungs are clear"), the IMPRESSION
against the FINDINGS, or the reference library's habits are no such reason: with only those,
nothing in the text says which side is wrong, so no replacement is made; the evidence offers
both readings (keep the sentence, and align the summary with it; or the other reading) and
the radiologist chooses.
"""
from __future__ import annotations

from dataclasses import dataclass

from workers.nlp import extract_findings
from workers.nlp.findings import ABSENT, PRESENT, UNCERTAIN, Finding
from workers.study.context import StudyContext

SUMMARY_SECTIONS = frozenset({"impression", "wet_read"})
#: Verdict bases where the report's own text is the fix's reason. "denial_wording" rests on the
#: reference library's habits, which never outweigh a normal statement the finding contradicts.
OWN_TEXT_BASES = frozenset({"own_words", "detailed_text"})


def rests_on_own_text(basis: str) -> bool:
    """Whether a verdict's ``basis`` ("own_words+detailed_text", ...) is the report's own text
    for every finding the fix removes."""
    return bool(basis) and set(basis.split("+")) <= OWN_TEXT_BASES


@dataclass(frozen=True)
class Verdict:
    """Whether a fix may be made automatically, and why (``reason`` is shown on the panel)."""

    allowed: bool
    reason: str
    lost: tuple[Finding, ...] = ()
    related: int | None = None  # the sentence that disagrees, when one does
    basis: str = ""  # keeps_findings, own_words, denial_wording, detailed_text or none


def present_findings(ctx: StudyContext, index: int) -> list[Finding]:
    """What the sentence states present (or possible), in its own words."""
    return [f for f in ctx.findings.get(index, [])
            if f.status in (PRESENT, UNCERTAIN) and not f.implied]


def lost_findings(ctx: StudyContext, index: int, fix_text: str) -> list[Finding]:
    """The sentence's present findings that ``fix_text`` no longer states present ("" deletes
    the sentence, so all of them)."""
    before = present_findings(ctx, index)
    if not before:
        return []
    if not fix_text.strip():
        return before
    kept = {f.observation for f in extract_findings(fix_text)
            if f.status in (PRESENT, UNCERTAIN) and not f.implied}
    return [f for f in before if f.observation not in kept]


def _sides_overlap(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b or "bilateral" in (a, b)


def detailed_denial(ctx: StudyContext, index: int, finding: Finding) -> int | None:
    """Another sentence of the report's detailed part that denies ``finding``: in so many
    words, or (for a sentence of a summary section) also by a normal statement."""
    in_summary = ctx.sentence(index).section in SUMMARY_SECTIONS
    for other in ctx.image_sentences:
        if other == index or ctx.sentence(other).section in SUMMARY_SECTIONS:
            continue
        for f in ctx.findings.get(other, []):
            if f.status != ABSENT or f.observation != finding.observation:
                continue
            if f.implied and not in_summary:
                continue  # a normal statement is a summary, not a detailed denial
            if _sides_overlap(f.laterality, finding.laterality):
                return other
    return None


def judge_direction(ctx: StudyContext, index: int, fix_text: str, *,
                    own_span: tuple[int, int] | None = None, own_shape: str | None = None,
                    related: int | None = None, method_reason: str = "",
                    denial_wording: tuple[str, int] | None = None) -> Verdict:
    """Whether the fix of sentence ``index`` to ``fix_text`` may be made automatically.

    ``own_span``: offsets in the sentence of the words found wrong (a substituted term): a
    finding inside them may go. ``own_shape``: the sentence's own shape that says the
    finding is a lost denial, in words. ``related``: the sentence the flag compares with.
    ``method_reason``: how the fix was made, for the reason shown when nothing is lost.
    ``denial_wording``: (the words, how often) reference reports write the sentence as a
    denial, when the fix is that wording."""
    lost = lost_findings(ctx, index, fix_text)
    if not lost:
        return Verdict(True, method_reason or "the fix keeps every finding the sentence states",
                       (), related, "keeps_findings")
    start = ctx.sentence(index).start
    reasons, bases = [], []
    for f in lost:
        if own_span is not None and own_span[0] <= f.start - start and f.end - start <= own_span[1]:
            reasons.append(f"the words '{f.text or f.observation}' are what is wrong here, "
                           "not a finding")
            bases.append("own_words")
            continue
        if own_shape:
            reasons.append(own_shape)
            bases.append("own_words")
            continue
        other = detailed_denial(ctx, index, f)
        if other is None:
            if denial_wording is not None and f.severity is None \
                    and not ctx.internal_support(index, f):
                words, count = denial_wording
                reasons.append(f"reference reports write exactly '{words}' {count} "
                               f"time{'s' if count != 1 else ''} and never as here, the "
                               f"sentence gives the {(f.text or f.observation).lower()} no size "
                               f"or degree, and no other sentence states it")
                bases.append("denial_wording")
                continue
            return Verdict(False, _blocked_reason(ctx, index, f, related), tuple(lost), related,
                           "none")
        bases.append("detailed_text")
        where = ("the findings" if ctx.sentence(index).section in SUMMARY_SECTIONS
                 else "another sentence of the findings")
        reasons.append(f"{where} (sentence {other + 1}) state{'s' if 'another' in where else ''}"
                       f" no {(f.text or f.observation).lower()} in so many words")
    return Verdict(True, "; ".join(dict.fromkeys(reasons)), tuple(lost), related,
                   "+".join(dict.fromkeys(bases)))


def _blocked_reason(ctx: StudyContext, index: int, finding: Finding, related: int | None
                    ) -> str:
    name = (finding.text or finding.observation).lower()
    if related is not None:
        other = ctx.sentence(related)
        what = ("a summary" if other.section in SUMMARY_SECTIONS
                or any(f.implied for f in ctx.findings.get(related, [])) else "another sentence")
        return (f"this sentence states {name}; only {what} (sentence {related + 1}) disagrees, "
                f"and a finding is never deleted to agree with it: keep the sentence and align "
                f"the other, or choose the other reading")
    return (f"this sentence states {name}; nothing else in the report denies it (only "
            f"reference reports are worded the other way), so both readings are offered")


__all__ = ["SUMMARY_SECTIONS", "Verdict", "detailed_denial",
           "judge_direction", "lost_findings", "present_findings"]
