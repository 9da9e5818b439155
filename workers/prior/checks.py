"""The comparison claims of a report checked against its prior report (issue 31).

Both reports are read into statements (workers/nlp/statements.py) and compared through the
hierarchy (workers/nlp/hierarchy.py): a statement of the current report and one of the prior
speak of one finding when their nodes overlap (the same, one narrower, close, or two readings
of one thing at one place) on sides that agree; a tube or line when its device and kinds
agree. The checks:

* ``new_but_prior``: called new, but the prior report states it;
* ``unchanged_but_absent``: unchanged, stable, again seen or persistent, but the prior report
  does not state it (it denies it, or never names it);
* ``resolved_but_never``: resolved, removed, improved or decreased, but the prior report does
  not state it;
* ``direction``: improved (decreased) or worse (increased), against the grades or sizes of
  the two reports ("worse than on the prior study" of a mild edema after a moderate one);
* ``comparison_none``: "COMPARISON: None.", "no prior studies available", "without prior
  imaging", although there is a prior report;
* ``prior_not_addressed``: a finding of the prior that needs follow-up (the hierarchy's
  ``follow_up`` rows: a nodule, a mass, a pneumothorax, an effusion, a tube or line) neither
  named in this report nor said to have resolved or been removed.

Each ``Issue`` names the sentence it doubts and the prior sentence it rests on.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workers.nlp.findings import ABSENT, IMAGE_SECTIONS, PRESENT, UNCERTAIN
from workers.nlp.hierarchy import addressing_words, broader, contradicts, needs_follow_up
from workers.nlp.sections import ParsedReport
from workers.nlp.statements import (
    BETTER,
    GONE,
    NEW,
    PERSISTS,
    UNCHANGED,
    WORSE,
    Statement,
    denies_comparison,
    places_overlap,
    same_finding,
    sides_overlap,
    statements,
)
from workers.study.context import StudyContext

NEW_BUT_PRIOR = "new_but_prior"
UNCHANGED_BUT_ABSENT = "unchanged_but_absent"
RESOLVED_BUT_NEVER = "resolved_but_never"
DIRECTION = "direction"
COMPARISON_NONE = "comparison_none"
PRIOR_NOT_ADDRESSED = "prior_not_addressed"
CHECKS = (NEW_BUT_PRIOR, UNCHANGED_BUT_ABSENT, RESOLVED_BUT_NEVER, DIRECTION, COMPARISON_NONE,
          PRIOR_NOT_ADDRESSED)

CONFIDENCE = {NEW_BUT_PRIOR: 0.75, UNCHANGED_BUT_ABSENT: 0.7, RESOLVED_BUT_NEVER: 0.7,
              DIRECTION: 0.7, COMPARISON_NONE: 0.75, PRIOR_NOT_ADDRESSED: 0.65}
# the prior report never names the finding (it does not deny it either): a little less sure
SILENT_PRIOR = 0.6



@dataclass(frozen=True)
class Issue:
    """One comparison claim the prior report does not bear out.

    ``sentence``: the current sentence doubted; ``prior_sentence``: the prior report's
    sentence it rests on (None when the prior never names the finding); ``observation``:
    the finding; ``claim`` and ``prior_claim``: the words of each; ``detail``: why, in words."""

    check: str
    sentence: int
    confidence: float
    observation: str | None
    claim: str
    prior_sentence: int | None
    prior_claim: str
    detail: str
    status: str = PRESENT


def _image(parsed: ParsedReport) -> list[Statement]:
    image = {s.index for s in parsed.sentences if s.section in IMAGE_SECTIONS}
    return [s for s in statements(parsed) if s.sentence in image]


def _one(a: Statement, b: Statement) -> bool:
    """Two statements, one of each report, of one finding (or one tube or line)."""
    if a.summary or b.summary:
        return False
    if a.device or b.device:
        if a.concept != b.concept or (a.kinds and b.kinds and not a.kinds & b.kinds):
            return False
    elif not same_finding(a, b):
        return False
    return sides_overlap(a, b)


def _there(prior: list[Statement], c: Statement, same=_one) -> list[Statement]:
    """Prior statements that the finding of ``c`` was there (present or possible, not gone);
    ``same`` says which prior statements are of it."""
    return [p for p in prior if same(c, p) and p.now in (PRESENT, UNCERTAIN)]


# What a change claim's broad words may be read as on the prior report: an opacity is the
# prior's lung finding at its place ("Improved left basilar opacity" after "Left basilar
# atelectasis"), "support devices" the prior's tubes and lines.
_BROAD_OPACITIES = frozenset({"opacity", "airspace opacity"})
_ANY_DEVICE = "support device"


def _read_as(c: Statement, p: Statement) -> bool:
    """The prior statement ``p`` names what the broad words of ``c`` may mean (looser than
    ``_one``: for a claim that something changed since the prior, never for "new")."""
    if c.summary or p.summary:
        return False
    if c.concept == _ANY_DEVICE:
        return p.device
    if c.concept not in _BROAD_OPACITIES or "opacity" not in broader(p.concept):
        return False
    return sides_overlap(c, p) and places_overlap(c, p)


def _denied(prior: list[Statement], c: Statement) -> list[Statement]:
    """Prior statements that it was not: a denial of it, or a normal statement it
    contradicts ("The lungs are clear.", "No acute cardiopulmonary process.")."""
    out = []
    for p in prior:
        if p.summary:
            if contradicts(p.concept, c.concept) and (
                    p.laterality in (None, "bilateral") or c.laterality in (None, p.laterality)):
                out.append(p)
        elif p.now == ABSENT and _one(c, p) and p.temporal is None:
            out.append(p)
    return out


def _grade(statements_: list[Statement], c: Statement) -> tuple[tuple[float, float] | None,
                                                                  float | None, Statement | None]:
    """(grade, size in mm, the statement they come from) of the finding of ``c`` in a report:
    its own when it gives one, else the first statement of the same finding that does."""
    for s in [c, *[s for s in statements_ if s is not c and _one(c, s) and s.now == PRESENT]]:
        if s.grade is not None or s.size_mm is not None:
            return s.grade, s.size_mm, s
    return None, None, None


def _against(change: str, now: tuple, before: tuple) -> str | None:
    """Why a change word disagrees with the two grades (or sizes), or None."""
    (g_now, size_now), (g_before, size_before) = now, before
    worse = change == WORSE
    if g_now is not None and g_before is not None:
        if worse and g_now[1] < g_before[0]:
            return "a lower grade now"
        if not worse and g_now[0] > g_before[1]:
            return "a higher grade now"
    if size_now is not None and size_before is not None:
        if worse and size_now < size_before / 1.15:
            return f"{size_now:g} mm now, {size_before:g} mm before"
        if not worse and size_now > size_before * 1.15:
            return f"{size_now:g} mm now, {size_before:g} mm before"
    return None


def _text(parsed: ParsedReport, index: int) -> str:
    return parsed.sentences[index].text


def _usable(ctx: StudyContext) -> bool:
    """A prior report to compare with: given, and not dated after this study."""
    if ctx.prior is None:
        return False
    if ctx.prior_date and ctx.date and ctx.prior_date > ctx.date:
        return False
    return True


def comparison_claims(ctx: StudyContext) -> list[Issue]:
    """Sentences that say there is nothing to compare with: a COMPARISON section that names no
    earlier study ("None.", "None available.") or denies one ("No prior studies available."),
    and a sentence that denies a prior study ("without prior imaging, its chronicity cannot be
    determined"); ``statements.denies_comparison`` reads them (with the one negation)."""
    out = []
    for s in ctx.parsed.sentences:
        if s.section != "comparison" and s.section not in IMAGE_SECTIONS:
            continue
        words = denies_comparison(s.text, s.section)
        if words:
            out.append((s.index, words))
    when = f" of {ctx.prior_date}" if ctx.prior_date else ""
    return [Issue(COMPARISON_NONE, i, CONFIDENCE[COMPARISON_NONE], None, words, None, "",
                  f"the prior report{when} is on file") for i, words in out]


def find_issues(ctx: StudyContext) -> list[Issue]:
    """Every comparison claim of ``ctx``'s report that its prior report does not bear out
    (none without a prior report)."""
    if not _usable(ctx):
        return []
    current, prior = _image(ctx.parsed), _image(ctx.prior)
    # the prior's indication or history may name a tube placed ("s/p chest tube placement"),
    # not a question ("evaluate for pneumonia")
    prior_all = [s for s in statements(ctx.prior) if s.image or (s.told and s.status == PRESENT)]
    issues = comparison_claims(ctx)
    for c in current:
        if c.summary or c.temporal is None or not c.committed:
            continue
        there = _there(prior, c)
        there_anywhere = there or _there(prior_all, c) or _there(prior_all, c, _read_as)
        if c.temporal == NEW and c.positive and there:
            p = there[0]
            issues.append(Issue(NEW_BUT_PRIOR, c.sentence, CONFIDENCE[NEW_BUT_PRIOR],
                                c.finding.observation, c.phrase or c.words, p.sentence,
                                p.phrase or p.words,
                                "a finding the prior report states is not new"))
        elif c.temporal in (UNCHANGED, PERSISTS) and c.positive and not there_anywhere:
            issues.append(_not_there(ctx, UNCHANGED_BUT_ABSENT, c, prior,
                                     "be unchanged or again seen"))
        elif c.temporal in (GONE, BETTER) and not there_anywhere \
                and (c.positive or c.temporal == GONE):
            issues.append(_not_there(ctx, RESOLVED_BUT_NEVER, c, prior,
                                     "have resolved, been removed or improved"))
        elif c.temporal in (BETTER, WORSE) and c.positive and there:
            now_grade, now_size, _ = _grade(current, c)
            p_grade, p_size, p = _grade(prior, there[0])
            why = _against(c.temporal, (now_grade, now_size), (p_grade, p_size))
            if why and p is not None:
                word = "worse" if c.temporal == WORSE else "better"
                issues.append(Issue(DIRECTION, c.sentence, CONFIDENCE[DIRECTION],
                                    c.finding.observation, c.phrase or c.words, p.sentence,
                                    p.phrase or p.words,
                                    f"called {word} than before, yet the two reports give "
                                    f"{why}"))
    issues += not_addressed(ctx, current, prior)
    # one flag per sentence and check (a sentence that calls two words for one finding new)
    kept: dict[tuple, Issue] = {}
    for issue in issues:
        key = (issue.sentence, issue.check, issue.observation
               if issue.check == PRIOR_NOT_ADDRESSED else None)
        if key not in kept or issue.confidence > kept[key].confidence:
            kept[key] = issue
    return list(kept.values())


def _not_there(ctx: StudyContext, check: str, c: Statement, prior: list[Statement],
               said: str) -> Issue:
    denied = _denied(prior, c)
    if denied:
        p = denied[0]
        return Issue(check, c.sentence, CONFIDENCE[check], c.finding.observation,
                     c.phrase or c.words, p.sentence, p.words,
                     f"the prior report says it was not there, so it cannot {said}")
    return Issue(check, c.sentence, SILENT_PRIOR, c.finding.observation, c.phrase or c.words,
                 None, "", f"the prior report never names it, so it cannot {said}")


def _addresses(s: Statement, p: Statement) -> bool:
    """A current statement that speaks of the prior finding ``p``: names it, whatever it says
    of it, or calls the pleural spaces clear (a pleural finding's own summary); "the lungs are
    clear" or "no acute process" says nothing of a nodule, a mass or a line."""
    if s.summary:
        return s.concept == "clear pleural spaces" and contradicts(s.concept, p.concept)
    return _one(s, p)


def not_addressed(ctx: StudyContext, current: list[Statement], prior: list[Statement]
                  ) -> list[Issue]:
    """Prior findings that need follow-up that this report neither names nor says resolved
    or removed: flagged on the first sentence of the IMPRESSION (else the last image
    sentence), quoting the prior sentence."""
    image = [s for s in ctx.parsed.sentences if s.section in IMAGE_SECTIONS]
    if not image:
        return []
    impression = [s for s in image if s.section == "impression"]
    where = (impression[0] if impression else image[-1]).index
    text = " ".join(s.text.lower() for s in image)
    out, seen = [], set()
    for p in prior:
        if p.summary or p.now not in (PRESENT, UNCERTAIN) or p.of_prior \
                or not (p.told or p.status == UNCERTAIN):
            continue  # (a possible pneumothorax is followed too)
        concept = p.finding.observation
        follow = any(needs_follow_up(b) for b in {p.concept} | broader(p.concept))
        if not follow or (concept, p.laterality) in seen:
            continue
        if any(_addresses(s, p) for s in current):
            continue
        if any(re.search(rf"\b{re.escape(a)}", text) for a in addressing_words(concept)):
            continue
        seen.add((concept, p.laterality))
        out.append(Issue(PRIOR_NOT_ADDRESSED, where, CONFIDENCE[PRIOR_NOT_ADDRESSED], concept,
                         _text(ctx.parsed, where), p.sentence, p.phrase or p.words,
                         "a finding that needs follow-up is neither named nor said to have "
                         "resolved or been removed",
                         status=ABSENT))
    return out


__all__ = ["CHECKS", "COMPARISON_NONE", "DIRECTION", "Issue", "NEW_BUT_PRIOR",
           "PRIOR_NOT_ADDRESSED", "RESOLVED_BUT_NEVER", "UNCHANGED_BUT_ABSENT",
           "comparison_claims", "find_issues", "not_addressed"]
