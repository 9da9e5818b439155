"""The consistency judge (LLM-as-judge).

    judge(ctx, llm=None) -> list[Detection]          detector "judge"

With the llm role on ``builtin`` (``llm=None``) the judge turns the consistency and
plausibility checks of ``workers.rules.checks`` (no model) into detections; with a language
model it asks the model with the ``judge/v1`` prompt (``llm``). It emits the evidence of
docs/detections.md.
"""
from __future__ import annotations

from workers.judge.llm import judge_with_llm
from workers.rules.checks import Issue, run_checks
from workers.study.context import StudyContext
from workers.types import Detection

DETECTOR = "judge"


def issue_detection(ctx: StudyContext, issue: Issue) -> Detection:
    sentence = ctx.sentence(issue.sentence)
    return Detection(
        sentence_index=issue.sentence, start=sentence.start, end=sentence.end,
        detector=DETECTOR, explanation=issue.explanation, harm=issue.harm,
        confidence=round(issue.confidence, 3),
        evidence={"rule": issue.rule, "related_sentence": issue.related, "detail": issue.detail},
        suggestion=None)


def judge(ctx: StudyContext, llm=None, issues: list[Issue] | None = None) -> list[Detection]:
    """The judge's detections: one per issue the checks (or the model) find."""
    if llm is not None:

        return judge_with_llm(ctx, llm)
    issues = run_checks(ctx) if issues is None else issues
    # one detection per (sentence, rule): the most confident issue speaks for the rule
    best: dict[tuple[int, str], Issue] = {}
    for issue in issues:
        key = (issue.sentence, issue.rule)
        if key not in best or issue.confidence > best[key].confidence:
            best[key] = issue
    return [issue_detection(ctx, issue) for issue in
            sorted(best.values(), key=lambda x: (x.sentence, -x.confidence))]


__all__ = ["DETECTOR", "Issue", "judge"]
