"""Three-stage correction, stage 3: the corrected sentence ("" to remove it)."""
from .base import Prompt, register
from .correction_detect import CONTEXT, SYSTEM

PROMPT = register(Prompt(
    task="correction_correct",
    version="correction_correct/v3",
    system=SYSTEM,
    user=(
        CONTEXT + "\n\n"
        "Step 3 of 3: sentence $number is wrong ($reason):\n$sentence\n\n"
        "Rewrite that sentence so that it is correct, changing as few words as possible and "
        "keeping the report's style. If nothing in it can be right, reply with an empty "
        "sentence to remove it. Never remove or negate a finding the sentence states only "
        "because the impression or a normal statement (\"no acute process\", \"lungs are "
        "clear\") disagrees: the summary is corrected to agree with the detailed findings, "
        "not the other way round.\n"
        "Reply with one JSON object and nothing else: "
        "{\"corrected_sentence\": \"...\", \"explanation\": \"what was wrong, in one sentence "
        "for the radiologist\"}."
    ),
    schema={
        "type": "object",
        "properties": {
            "corrected_sentence": {"type": "string", "maxLength": 2000},
            "explanation": {"type": "string", "minLength": 1, "maxLength": 600},
        },
        "required": ["corrected_sentence", "explanation"],
        "additionalProperties": False,
    },
    max_tokens=300,
))
