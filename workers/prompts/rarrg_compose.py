"""RA-RRG: writing a report from retrieved key phrases (llm role)."""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="rarrg_compose",
    version="rarrg_compose/v1",
    system="You are a radiologist writing a chest radiograph report.",
    user=(
        "These key phrases were retrieved for the study from the reports of the most similar "
        "reference images; each has a selection score between 0 and 1:\n$phrases\n\n"
        "Write the report from these phrases only. FINDINGS: support devices first, then heart "
        "and mediastinum, lungs, pleura and bones, one short sentence per finding, joining "
        "negative statements about the same structure. IMPRESSION: the findings that matter "
        "most, or \"No acute cardiopulmonary abnormality.\" when every phrase is normal. When "
        "two phrases contradict each other keep the one with the higher score. Do not add "
        "findings, measurements, comparisons with earlier studies or recommendations.\n"
        "Answer with the report text only, starting with \"FINDINGS:\"."
    ),
    max_tokens=300,
))
