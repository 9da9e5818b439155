"""V-RAG entity probing, multimodal form (generator role): the reference images and their
reports come first, then the query image, then a yes/no question about the query image.

The generator backend places every image after a text part naming it ("View: Reference 1 (PA)",
..., "View: Query (PA)"), in the order given; this instruction follows the images."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="vrag_probe_image",
    version="vrag_probe_image/v1",
    system="You are a radiologist reading chest radiographs.",
    user=(
        "The first $n_references images are reference radiographs similar to the query; their "
        "reports, in the same order:\n$references\n\n"
        "The last image(s), labelled Query, belong to the study being read. Use the references "
        "only as examples of how findings look; answer about the query image alone.\n"
        "Question: $question\n"
        "Answer with one word: yes or no."
    ),
    max_tokens=8,
))
