"""LLM-as-judge: the problems of one report, each tied to a sentence.

The model is asked for the same kinds of problem the built-in judge checks (contradiction,
side, impression against findings, something a chest radiograph cannot show, wording the
reference reports never use); the reply is a list, empty for a sound report.
"""
from .base import Prompt, register

RULES = ("contradiction", "laterality", "impression_vs_findings", "out_of_domain",
         "unsupported_by_library", "other")

PROMPT = register(Prompt(
    task="judge",
    version="judge/v2",
    system=(
        "You are a senior radiologist acting as a judge of chest radiograph reports drafted "
        "by a machine. You point out statements that are wrong or cannot be right, never "
        "matters of style, and never findings that are merely missing."
    ),
    user=(
        "Report, one numbered sentence per line (section in brackets):\n$report\n\n"
        "Reports of similar chest radiographs from a reference library (other patients; "
        "examples of what such reports usually say):\n$references\n\n"
        "List every sentence that has one of these problems:\n"
        "- contradiction: it states a finding that another sentence denies, or the reverse;\n"
        "- laterality: it puts a finding on the other side from the rest of the report;\n"
        "- impression_vs_findings: the impression and the findings disagree;\n"
        "- out_of_domain: it names a condition a chest radiograph cannot show;\n"
        "- unsupported_by_library: it states something the reference reports never state in "
        "such a context and that nothing else in the report supports;\n"
        "- other: any other statement that cannot be right.\n"
        "Reply with one JSON object and nothing else: {\"problems\": [{\"sentence\": 2, "
        "\"rule\": \"contradiction\", \"related_sentence\": 5, \"confidence\": 0.7, "
        "\"explanation\": \"one sentence for the radiologist\"}]}. related_sentence is the "
        "number of the other sentence involved, or null. Reply {\"problems\": []} when the "
        "report is sound."
    ),
    schema={
        "type": "object",
        "properties": {
            "problems": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "properties": {
                        "sentence": {"type": "integer", "minimum": 1},
                        "rule": {"enum": list(RULES)},
                        "related_sentence": {"type": ["integer", "null"], "minimum": 1},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "explanation": {"type": "string", "minLength": 1, "maxLength": 600},
                    },
                    "required": ["sentence", "rule", "related_sentence", "confidence",
                                 "explanation"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["problems"],
        "additionalProperties": False,
    },
    max_tokens=700,
))
