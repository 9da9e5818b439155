"""What the correction concludes about one report, shared by its built-in stages
(``three_stage.py``) and its LLM path (``llm.py``), which therefore need not import each other.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from workers.types import Detection

DETECTOR = "correction"


@dataclass(frozen=True)
class CorrectionResult:
    """What the three stages concluded about one report."""

    has_error: bool
    sentence_index: int | None
    suggestion: str | None
    corrected_report: str | None
    detections: list[Detection] = field(default_factory=list)


def apply_suggestion(text: str, start: int, end: int, suggestion: str) -> str:
    """The report with ``text[start:end]`` replaced ("" removes the sentence and its space)."""
    if suggestion:
        return text[:start] + suggestion + text[end:]
    before, after = text[:start], text[end:]
    if after.startswith(" "):
        after = after[1:]
    elif before.endswith(" "):
        before = before[:-1]
    return before + after
