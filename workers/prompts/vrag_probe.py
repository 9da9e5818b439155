"""V-RAG entity probing, text form (llm role): a yes/no question answered from the reports of
the most similar reference images, given with their image similarity."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="vrag_probe",
    version="vrag_probe/v1",
    system=("You answer yes/no questions about a chest radiograph that you cannot see, from the "
            "reports of the reference radiographs that look most like it."),
    user=(
        "The reference radiographs most similar to the query image, most similar first, each "
        "with its image similarity (0 to 1) and its report:\n$references\n\n"
        "Question about the query image: $question\n"
        "Weigh the references by their similarity: the closer a reference image, the more its "
        "report counts. A finding a reference report does not mention is probably absent in "
        "that reference.\n"
        "Answer with JSON only: {\"answer\": \"yes\" or \"no\", \"reason\": \"one short sentence\"}"
    ),
    schema={
        "type": "object",
        "properties": {"answer": {"type": "string", "enum": ["yes", "no"]},
                       "reason": {"type": "string"}},
        "required": ["answer"],
    },
    max_tokens=120,
))
