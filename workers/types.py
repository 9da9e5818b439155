"""Plain data that crosses the boundary between the web application and the workers.

Everything here is a dataclass or an enum with no Django in sight, so the pipeline runs the
same way in a Celery worker, a management command, a test or a notebook.
"""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from enum import Enum
from typing import Any


class Harm(str, Enum):  # noqa: UP042 - StrEnum would change str(Harm.X) in stored text
    """How much a wrong sentence could hurt a patient (Lasko et al.'s five levels)."""

    NONE = "none"
    VERY_LOW = "very low"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return list(Harm).index(self)

    @classmethod
    def parse(cls, value: str | Harm) -> Harm:
        if isinstance(value, Harm):
            return value
        normalised = str(value).strip().lower().replace("_", " ").replace("-", " ")
        for harm in cls:
            if harm.value == normalised:
                return harm
        raise ValueError(f"unknown harm level {value!r}; expected one of {[h.value for h in cls]}")


_ATOMS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """``dataclasses.asdict``'s copy of a field value: containers copied, dataclasses turned
    into dicts, immutable atoms shared (asdict's deepcopy returns them as they are)."""
    kind = type(value)
    if kind is dict:
        return {_plain(k): _plain(v) for k, v in value.items()}
    if kind is list:
        return [_plain(v) for v in value]
    if isinstance(value, _ATOMS):
        return value
    if kind is tuple:
        return tuple(_plain(v) for v in value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return copy.deepcopy(value)


@dataclass
class Detection:
    """One detector's claim that a sentence of a report may be wrong.

    ``start``/``end`` are character offsets into the full report text; ``suggestion`` is the
    replacement sentence a detector proposes ("" means: delete the sentence, None: no proposal).
    ``evidence`` holds detector-specific, JSON-serialisable details that the review page shows
    (support counts, probe questions and answers, retrieved neighbours, ...).
    """

    sentence_index: int
    start: int
    end: int
    detector: str
    explanation: str
    harm: Harm
    confidence: float
    evidence: dict[str, Any] = field(default_factory=dict)
    suggestion: str | None = None
    prompt_version: str | None = None
    model: str | None = None

    def __post_init__(self) -> None:
        self.harm = Harm.parse(self.harm)
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be in [0, 1], got {self.confidence}")
        if self.start > self.end:
            raise ValueError(f"span start {self.start} is after its end {self.end}")

    def to_dict(self) -> dict[str, Any]:
        # what dataclasses.asdict gives, without its deep copy of every string and number
        # (a tenth of a warm batch audit went there)
        data = {f.name: _plain(getattr(self, f.name)) for f in fields(self)}
        data["harm"] = self.harm.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Detection:
        return cls(**data)
