"""The three stages with a language model: three prompts, each answer a validated JSON object.

Stage 1 (``correction_detect``) says whether the report has an error; stage 2
(``correction_localize``) names the sentence (by its number, counted from 1); stage 3
(``correction_correct``) rewrites it. Each answer is validated against its schema (a sentence
number must exist) and asked for once more on failure (workers.backends.structured); a second
failure raises ``StructuredOutputError`` and the stage fails, never with a made-up answer.
"""
from __future__ import annotations

from workers.backends.structured import complete_json
from workers.correction.builtin import disjunction_signals, readings_for
from workers.correction.direction import judge_direction
from workers.correction.result import DETECTOR, CorrectionResult, apply_suggestion
from workers.library.stats import tokens_of
from workers.nlp import harm_of
from workers.prompts import Provenance, get_prompt
from workers.study.context import StudyContext
from workers.study.formatting import (
    bulleted,
    index_of,
    numbered_report,
    references,
    with_sentence_range,
)
from workers.types import Detection, Harm


def _ask(model, task: str, schema: dict | None = None, **variables):
    prompt = get_prompt(task)
    value = complete_json(model, prompt.render(**variables), schema or prompt.schema,
                          task=prompt.version, max_tokens=prompt.max_tokens)
    return value, Provenance.of(prompt, model)


def _harm(ctx: StudyContext, index: int) -> Harm:
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if not findings:
        return Harm.LOW
    return max((harm_of(f.observation, f.status) for f in findings), key=lambda h: h.rank)


def _own_shape(ctx: StudyContext, index: int) -> str | None:
    if any(i == index for i, _ in disjunction_signals(ctx)):
        return ("the sentence affirms a list joined by 'or', the shape of a denial that lost "
                "its 'no'")
    return None


def _denial_wording(ctx: StudyContext, index: int, proposed: str) -> tuple[str, int] | None:
    """The library's denial wording of the sentence, when the model's fix is that wording."""
    polarity = ctx.polarity(index)
    if polarity.variant is None or polarity.own or polarity.variant_count < 2:
        return None
    if tokens_of(proposed) != tuple(polarity.variant):
        return None
    return " ".join(polarity.variant), polarity.variant_count


def correct_with_llm(ctx: StudyContext, model, phrases: list[str]) -> CorrectionResult:
    context = {"report": numbered_report(ctx), "internal": bulleted(phrases),
               "references": references(ctx)}
    detected, _ = _ask(model, "correction_detect", **context)
    if not detected["has_error"]:
        return CorrectionResult(False, None, None, None)
    n = len(ctx.parsed.sentences)
    schema = with_sentence_range(get_prompt("correction_localize").schema, n,
                                 ("properties", "sentence"))
    located, _ = _ask(model, "correction_localize", schema, reason=detected["reason"], **context)
    index = index_of(located["sentence"])
    sentence = ctx.sentence(index)
    corrected, provenance = _ask(model, "correction_correct", number=located["sentence"],
                                 reason=located["reason"], sentence=sentence.text, **context)
    proposed = corrected["corrected_sentence"].strip()
    # the model's fix obeys the same direction rule as the rule engine's
    verdict = judge_direction(ctx, index, proposed,
                              method_reason=f"the model's reason: {located['reason']}",
                              own_shape=_own_shape(ctx, index),
                              denial_wording=_denial_wording(ctx, index, proposed))
    suggestion = proposed if verdict.allowed else None
    readings = () if verdict.allowed else readings_for(ctx, index, proposed, verdict)
    evidence = {
        "original": sentence.text,
        "suggestion": suggestion,
        "suggestion_reason": verdict.reason,
        "readings": list(readings),
        "internal": phrases[:12],
        "neighbours": [n.as_evidence() for n in ctx.neighbours],
        "stages": {
            "detect": {"has_error": True, "confidence": detected["confidence"],
                       "reason": detected["reason"]},
            "localize": {"sentence": index, "reason": located["reason"]},
            "correct": {"method": "llm"},
        },
        "prompts": [get_prompt(task).version for task in
                    ("correction_detect", "correction_localize", "correction_correct")],
    }
    detection = Detection(
        sentence_index=index, start=sentence.start, end=sentence.end, detector=DETECTOR,
        explanation=corrected["explanation"].strip(), harm=_harm(ctx, index),
        confidence=float(detected["confidence"]), evidence=evidence, suggestion=suggestion,
        **provenance.as_fields())
    return CorrectionResult(True, index, suggestion,
                            apply_suggestion(ctx.text, sentence.start, sentence.end, suggestion)
                            if suggestion is not None else ctx.text, [detection])
