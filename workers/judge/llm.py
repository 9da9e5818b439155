"""The judge with a language model (``judge/v1``): one validated JSON answer per report."""
from __future__ import annotations

from workers.backends.structured import complete_json
from workers.nlp import harm_of
from workers.prompts import Provenance, get_prompt
from workers.study.context import StudyContext
from workers.study.formatting import index_of, numbered_report, references, with_sentence_range
from workers.types import Detection, Harm

DETECTOR = "judge"


def _harm(ctx: StudyContext, index: int) -> Harm:
    findings = [f for f in ctx.findings.get(index, []) if not f.implied]
    if not findings:
        return Harm.LOW
    return max((harm_of(f.observation, f.status) for f in findings), key=lambda h: h.rank)


def judge_with_llm(ctx: StudyContext, model) -> list[Detection]:
    prompt = get_prompt("judge")
    n = len(ctx.parsed.sentences)
    item = ("properties", "problems", "items", "properties")
    schema = with_sentence_range(prompt.schema, n, item + ("sentence",),
                                 item + ("related_sentence",))
    answer = complete_json(model, prompt.render(report=numbered_report(ctx),
                                                references=references(ctx)),
                           schema, task=prompt.version, max_tokens=prompt.max_tokens)
    provenance = Provenance.of(prompt, model)
    detections = []
    for problem in answer["problems"]:
        sentence = ctx.sentence(index_of(problem["sentence"]))
        related = (index_of(problem["related_sentence"])
                   if problem["related_sentence"] is not None else None)
        detections.append(Detection(
            sentence_index=sentence.index, start=sentence.start, end=sentence.end,
            detector=DETECTOR, explanation=problem["explanation"].strip(),
            harm=_harm(ctx, sentence.index), confidence=float(problem["confidence"]),
            evidence={"rule": "llm", "llm_rule": problem["rule"],
                      "related_sentence": related if related != sentence.index else None,
                      "detail": problem["rule"].replace("_", " ")},
            **provenance.as_fields()))
    return detections
