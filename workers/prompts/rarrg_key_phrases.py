"""RA-RRG: tidying a report's key phrases and removing comparisons with earlier examinations."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="rarrg_key_phrases",
    version="rarrg_key_phrases/v1",
    system="You turn chest radiograph reports into short, self-contained finding phrases.",
    user=(
        "Report:\n$report\n\n"
        "Phrases found automatically in it:\n$phrases\n\n"
        "Return the list of short phrases that state what these images show, one finding per "
        "phrase, in lower case, for example \"small left pleural effusion\", \"no pneumothorax\", "
        "\"normal heart size\", \"endotracheal tube in place\". Fix or merge phrases that the "
        "automatic step split badly and add findings it missed. Leave out every reference to an "
        "earlier examination or to change over time (unchanged, stable, improved, worsened, new, "
        "again seen, compared with the prior study, interval ...): keep only the finding itself, "
        "or drop the phrase when nothing else is left. Leave out clinical history and "
        "recommendations.\n"
        "Answer with JSON only: {\"phrases\": [\"...\", \"...\"]}"
    ),
    schema={
        "type": "object",
        "properties": {"phrases": {"type": "array", "items": {"type": "string"}}},
        "required": ["phrases"],
    },
    max_tokens=400,
))
