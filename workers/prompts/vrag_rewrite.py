"""V-RAG: rewriting a report so that it agrees with the answers of the entity probes (llm role)."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="vrag_rewrite",
    version="vrag_rewrite/v1",
    system="You are a radiologist correcting a chest radiograph report.",
    user=(
        "Draft report:\n$report\n\n"
        "Each finding below was checked against the images with a yes/no question; the answers "
        "come from the most similar reference studies:\n$answers\n\n"
        "Rewrite the draft so that it agrees with every answer: remove or negate a finding "
        "answered \"no\", state a finding answered \"yes\" that the draft denies or omits, and "
        "keep everything else as it is (wording, order, sections). Do not add comparisons with "
        "earlier studies or recommendations.\n"
        "Answer with the rewritten report text only."
    ),
    max_tokens=400,
))
