"""RadFlag support by a language model: which of the n sampled reports entail one sentence.

One call per candidate sentence. The reply sorts every sample number into exactly one of
three lists; ``workers.radflag.llm_support`` checks that and asks again once when it does not.
Written from RadFlag's definition of radiology entailment (docs/design.md, method 1).
"""
from .base import Prompt, register

_ITEMS = {"type": "array", "items": {"type": "integer", "minimum": 1}, "uniqueItems": True}

PROMPT = register(Prompt(
    task="radflag_support",
    version="radflag_support/v1",
    system=(
        "You are a radiologist checking one sentence of a draft chest radiograph report "
        "against other reports written for the same images."
    ),
    user=(
        "Sentence to check:\n$sentence\n\n"
        "Reports of the same study, numbered 1 to $n:\n$samples\n\n"
        "Decide, for each numbered report, whether it supports the sentence.\n"
        "- complete: the report states the same finding, or a larger finding that includes "
        "it. A finding stated as absent (\"no pneumothorax\") is supported unless the report "
        "says it is present.\n"
        "- partial: the report has the finding but with a different severity, size, side or "
        "location; or it names a similar but not identical finding or device; or the sentence "
        "refers to an earlier examination and the report does not.\n"
        "- none: the sentence states a finding the report does not mention, or the report "
        "contradicts it.\n\n"
        "Reply with one JSON object and nothing else, in this form: "
        "{\"complete\": [1, 4], \"partial\": [2], \"none\": [3], "
        "\"reasons\": {\"2\": \"moderate rather than small\", \"3\": \"not mentioned\"}}. "
        "Every report number from 1 to $n must appear in exactly one of the three lists. "
        "Give a reason of a few words for every report you put in partial or none."
    ),
    schema={
        "type": "object",
        "properties": {
            "complete": _ITEMS,
            "partial": _ITEMS,
            "none": _ITEMS,
            "reasons": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["complete", "partial", "none"],
    },
    max_tokens=400,
))
