"""Three-stage correction, stage 1 (Wu et al.): does the report contain an error?

Context for all three stages: the report with numbered sentences, its own findings rephrased
as short phrases (internal retrieval) and the most similar reference reports (external
retrieval). Written in our own words from the method's definition (docs/design.md, method 5).
"""
from .base import Prompt, register

CONTEXT = (
    "Report under review, one numbered sentence per line (section in brackets):\n$report\n\n"
    "The report's own findings as short phrases:\n$internal\n\n"
    "Reports of similar chest radiographs from a reference library (for comparison of "
    "wording and of what is usually found; they are about other patients):\n$references"
)

SYSTEM = (
    "You are a senior radiologist proofreading chest radiograph reports that may contain "
    "one error: a finding that contradicts another sentence, a finding on the wrong side, a "
    "negation that was lost or added, a condition a chest radiograph cannot show, or a word "
    "swapped for an unrelated disease."
)

PROMPT = register(Prompt(
    task="correction_detect",
    version="correction_detect/v2",
    system=SYSTEM,
    user=(
        CONTEXT + "\n\n"
        "Step 1 of 3: decide whether the report contains an error. Judge the report against "
        "itself and against what a chest radiograph can show; use the reference reports only "
        "as examples of usual wording. A finding that is merely unusual is not an error.\n"
        "Reply with one JSON object and nothing else: "
        "{\"has_error\": true, \"confidence\": 0.8, \"reason\": \"one short sentence\"}. "
        "confidence is how sure you are, from 0 to 1."
    ),
    schema={
        "type": "object",
        "properties": {
            "has_error": {"type": "boolean"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "reason": {"type": "string", "maxLength": 600},
        },
        "required": ["has_error", "confidence", "reason"],
        "additionalProperties": False,
    },
    max_tokens=200,
))
