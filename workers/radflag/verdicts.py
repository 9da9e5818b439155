"""The verdict of one sampled report on one sentence (complete / partial / none), made by
the built-in engine or the llm role (``llm_support.py``) and counted by ``support.py``."""
from __future__ import annotations

from dataclasses import dataclass

COMPLETE, PARTIAL, NONE = "complete", "partial", "none"
VERDICTS = (COMPLETE, PARTIAL, NONE)
SUPPORTING = frozenset({COMPLETE, PARTIAL})


@dataclass(frozen=True)
class SampleVerdict:
    """One sample's verdict on one sentence; ``sample`` is the sample's 0-based index."""

    sample: int
    verdict: str
    reason: str = ""

    def to_dict(self) -> dict:
        return {"sample": self.sample, "verdict": self.verdict, "reason": self.reason}


__all__ = ["COMPLETE", "NONE", "PARTIAL", "SUPPORTING", "VERDICTS", "SampleVerdict"]
