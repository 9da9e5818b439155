"""Three-stage correction (Wu et al.; docs/design.md method 5) with internal and external
retrieval, behind the llm role.

Internal retrieval: the report's own RadGraph-schema graph (the extractor role) rephrased into
short phrases ("no left pleural effusion"). External retrieval: the k most similar library
reports (``StudyContext.neighbours``; never the report's own id). Then stage 1 detects
whether the report has an error, stage 2 localizes the sentence, stage 3 writes the corrected
sentence (and so the corrected report). The rule engine reports every sentence whose stage-1
score reaches the threshold (a drafted report can hold more than one error), ranked by stage
2; the corrected report applies the first. With the llm role on ``builtin`` the rule engine runs
the stages (workers.correction.builtin); with a language model, the three prompts of
workers.correction.llm.
"""
from __future__ import annotations

from workers.correction import builtin
from workers.correction.llm import correct_with_llm
from workers.correction.result import DETECTOR, CorrectionResult, apply_suggestion
from workers.nlp import extract_graph, graph_phrases
from workers.rules.checks import Issue, run_checks
from workers.study.context import StudyContext
from workers.types import Detection

MAX_INTERNAL = 12


def internal_phrases(ctx: StudyContext, extractor=None) -> list[str]:
    """The report's own findings as short phrases, from the extractor role's graph."""
    if extractor is None:

        return graph_phrases(extract_graph(ctx.text))

    return graph_phrases(extractor.extract(ctx.text))


def _relevant_phrases(phrases: list[str], sentence: str) -> list[str]:
    """The phrases that share a word with the sentence first, then the others."""
    words = set(sentence.lower().split())
    ranked = sorted(phrases, key=lambda p: -len(words & set(p.lower().split())))
    return ranked[:MAX_INTERNAL]


def correct(ctx: StudyContext, *, llm=None, extractor=None,
            issues: list[Issue] | None = None) -> CorrectionResult:
    """Run the three stages on the report of ``ctx``."""
    if llm is not None:
        return correct_with_llm(ctx, llm, internal_phrases(ctx, extractor))
    issues = run_checks(ctx) if issues is None else issues
    scores = [s for s in builtin.score_sentences(ctx, issues)
              if s.score >= builtin.DETECT_THRESHOLD]
    if not scores:
        return CorrectionResult(False, None, None, None)
    # the report's own phrases are evidence of a detection: a report without one needs none
    phrases = internal_phrases(ctx, extractor)
    detections = [_detection(ctx, scored, rank, phrases)
                  for rank, scored in enumerate(scores, 1)]
    best, primary = scores[0], detections[0]
    sentence = ctx.sentence(best.index)
    # no automatic replacement (two readings offered): no corrected report
    corrected = (apply_suggestion(ctx.text, sentence.start, sentence.end, primary.suggestion)
                 if primary.suggestion is not None else None)
    return CorrectionResult(True, best.index, primary.suggestion, corrected, detections)


def _detection(ctx: StudyContext, scored, rank: int, phrases: list[str]) -> Detection:
    """Stage 3 on one localized sentence, as a detection (``rank`` 1 is stage 2's choice)."""
    fix = builtin.correct_sentence(ctx, scored)
    sentence = ctx.sentence(scored.index)
    top = scored.top
    evidence = {
        "original": sentence.text,
        "suggestion": fix.text,
        "suggestion_reason": fix.reason,
        "readings": list(fix.readings),
        "internal": _relevant_phrases(phrases, sentence.text),
        "neighbours": [n.as_evidence() for n in ctx.neighbours],
        "stages": {
            "detect": {"has_error": True, "score": round(scored.score, 3)},
            "localize": {"sentence": scored.index, "rank": rank,
                         "signals": [{"kind": s.kind, "confidence": round(s.confidence, 3)}
                                     for s in scored.signals]},
            "correct": {"method": fix.method, "detail": fix.detail, "support": fix.support,
                        "basis": fix.basis},
        },
    }
    return Detection(
        sentence_index=scored.index, start=sentence.start, end=sentence.end, detector=DETECTOR,
        explanation=top.explanation, harm=builtin.harm_for(ctx, scored.index, top),
        confidence=builtin.confidence_band(scored.score), evidence=evidence,
        suggestion=fix.text)
