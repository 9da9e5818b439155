"""Three-stage correction, stage 2: which sentence holds the error (a sentence number)."""
from .base import Prompt, register
from .correction_detect import CONTEXT, SYSTEM

PROMPT = register(Prompt(
    task="correction_localize",
    version="correction_localize/v2",
    system=SYSTEM,
    user=(
        CONTEXT + "\n\n"
        "Step 2 of 3: the report contains an error ($reason). Find the one sentence that "
        "is wrong. When two sentences contradict each other, choose the one that is more "
        "likely wrong.\n"
        "Reply with one JSON object and nothing else: "
        "{\"sentence\": 3, \"reason\": \"one short sentence\"}, where sentence is the number "
        "of the line in the report above."
    ),
    schema={
        "type": "object",
        "properties": {
            "sentence": {"type": "integer", "minimum": 1},
            "reason": {"type": "string", "maxLength": 600},
        },
        "required": ["sentence", "reason"],
        "additionalProperties": False,
    },
    max_tokens=200,
))
