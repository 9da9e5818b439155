"""Drafting a chest radiograph report from the study's images (generator role, RadFlag sampling).

The generator backend puts each image, labelled with its view, before this instruction.
"""
from .base import Prompt, register

PROMPT = register(Prompt(
    task="report_generation",
    version="report_generation/v1",
    system="You are a radiologist reporting a chest radiograph.",
    user=(
        "The images above belong to one chest X-ray study; each is labelled with its view. "
        "Write the report for this study.\n"
        "FINDINGS: go through support devices, heart and mediastinum, lungs, pleura and "
        "bones, one short sentence per observation; say briefly when a structure looks normal.\n"
        "IMPRESSION: the conclusions that matter most, most important first.\n"
        "Report only what these images show. No earlier examination is available, so do not "
        "describe change over time or compare with a previous study. Do not invent clinical "
        "history, measurements you cannot see, or recommendations."
    ),
    max_tokens=256,
))
