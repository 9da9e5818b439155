"""The prior report checks as detections: the doubted sentence, quoting the prior sentence.

Each detection says which sentence is doubted and why, quotes the prior report's sentence the
doubt rests on (or says that the prior never names the finding), and carries the harm of the
finding involved (a finding silently dropped is a missed finding: the harm of its absence).
No finding is rewritten: the only suggestion is a COMPARISON line that says "None" although
a prior report is on file, which names the prior study instead.
"""
from __future__ import annotations

from workers.nlp.findings import PRESENT
from workers.nlp.harm import harm_of
from workers.study.context import StudyContext
from workers.types import Detection, Harm

from .checks import (
    COMPARISON_NONE,
    DIRECTION,
    NEW_BUT_PRIOR,
    PRIOR_NOT_ADDRESSED,
    RESOLVED_BUT_NEVER,
    UNCHANGED_BUT_ABSENT,
    Issue,
    find_issues,
)

DETECTOR = "prior"
_HEAD = {
    NEW_BUT_PRIOR: "Calls {obs} new",
    UNCHANGED_BUT_ABSENT: "Calls {obs} unchanged or again seen",
    RESOLVED_BUT_NEVER: "Says {obs} resolved, was removed or improved",
    DIRECTION: "Says {obs} changed one way",
    COMPARISON_NONE: "Says there is no earlier study to compare with",
    PRIOR_NOT_ADDRESSED: "Leaves out {obs}",
}
COMPARISON_REASON = ("the prior report is on file: the comparison line names it instead of "
                     "saying there is none")
NO_FIX_REASON = ("the text cannot say whether this report or the prior one is right: neither "
                 "is changed automatically; read the two films")


def _when(ctx: StudyContext) -> str:
    return f" ({ctx.prior_date})" if ctx.prior_date else ""


def explanation(ctx: StudyContext, issue: Issue) -> str:
    obs = issue.observation or "the finding"
    head = _HEAD[issue.check].format(obs=obs)
    prior = ctx.prior
    if issue.check == COMPARISON_NONE:
        return (f"{head}, but this study has a prior report{_when(ctx)}: its comparison claims "
                f"can be checked against it.")
    if issue.prior_sentence is None:
        return (f"{head}, but the prior report{_when(ctx)} never names it. This sentence is the "
                f"one doubted: {issue.detail}.")
    quote = prior.sentences[issue.prior_sentence].text
    if issue.check == PRIOR_NOT_ADDRESSED:
        return (f"{head}: the prior report{_when(ctx)} says \u201c{quote}\u201d, and this report "
                f"neither names it nor says it resolved or was removed. A finding that needs "
                f"follow-up should not be dropped silently; this impression is where it "
                f"belongs.")
    return (f"{head}, but the prior report{_when(ctx)} says \u201c{quote}\u201d. This sentence "
            f"is the one doubted: {issue.detail}.")


def _harm(issue: Issue) -> Harm:
    if issue.observation is None:
        return Harm.LOW
    return harm_of(issue.observation, issue.status if issue.status != PRESENT else PRESENT)


def detections(ctx: StudyContext) -> list[Detection]:
    out = []
    for issue in find_issues(ctx):
        sentence = ctx.sentence(issue.sentence)
        suggestion = None
        reason = NO_FIX_REASON
        if issue.check == COMPARISON_NONE and sentence.section == "comparison" \
                and ctx.prior_date:
            suggestion, reason = f"{ctx.prior_date}.", COMPARISON_REASON
        prior_text = (ctx.prior.sentences[issue.prior_sentence].text
                      if issue.prior_sentence is not None else None)
        out.append(Detection(
            sentence_index=issue.sentence, start=sentence.start, end=sentence.end,
            detector=DETECTOR, explanation=explanation(ctx, issue), harm=_harm(issue),
            confidence=issue.confidence,
            evidence={"check": issue.check, "observation": issue.observation,
                      "claim": issue.claim, "prior_sentence_index": issue.prior_sentence,
                      "prior_sentence": prior_text, "prior_claim": issue.prior_claim,
                      "prior_date": ctx.prior_date, "date": ctx.date, "detail": issue.detail,
                      "suggestion_reason": reason},
            suggestion=suggestion))
    return out


__all__ = ["DETECTOR", "detections", "explanation"]
