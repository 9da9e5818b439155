"""The site's combination settings as plain data (radreview/detectors stores and edits them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workers.detectors import DETECTORS

if TYPE_CHECKING:
    from workers.combine.calibration import ScoreCalibration

DEFAULT_SIMILARITY_THRESHOLD = 0.35
DEFAULT_FLAG_THRESHOLD = 0.3

RESTATES_SENTENCE = "restates_sentence"
OMISSION = "omission"
PATTERN = "pattern"
HARM_BELOW = "harm_below"
RULE_KINDS = (RESTATES_SENTENCE, OMISSION, PATTERN, HARM_BELOW)

JACCARD3 = "jaccard3"
EDIT = "edit"
METRICS = (JACCARD3, EDIT)

# What an explanation of an omission sounds like: the report leaves something out, rather
# than states something wrong. Detectors that find wrong claims do not word them this way.
OMISSION_PATTERN = (
    r"\b(?:omit(?:s|ted|ting)?|omission|is missing|are missing|leaves? out|left out|"
    r"(?:does|do) not (?:mention|describe|include|report|comment on)|"
    r"(?:fails?|failed) to (?:mention|describe|include|report|note)|not mentioned|"
    r"no mention of|should (?:also )?(?:mention|include|describe|report|note)|"
    r"(?:could|might) (?:also )?(?:mention|include|add)|incomplete|lacks?)\b"
)


@dataclass(frozen=True)
class FilterRule:
    """A site rule that removes a known false-positive pattern from the combined flags.

    ``kind``: restates_sentence (``metric`` jaccard3 or edit, ``threshold``), omission or
    pattern (``pattern``, a regular expression over the explanation; empty = the built-in
    omission wording), harm_below (``harm``: detections less harmful than this level).
    """

    name: str
    kind: str
    threshold: float = 0.5
    metric: str = JACCARD3
    pattern: str = ""
    harm: str = "very low"

    def __post_init__(self) -> None:
        if self.kind not in RULE_KINDS:
            raise ValueError(f"unknown rule kind {self.kind!r}; expected one of {RULE_KINDS}")
        if self.kind == RESTATES_SENTENCE and self.metric not in METRICS:
            raise ValueError(f"unknown metric {self.metric!r}; expected one of {METRICS}")


DEFAULT_RULES = (
    FilterRule("Explanation restates the sentence (word trigrams)", RESTATES_SENTENCE,
               threshold=0.5, metric=JACCARD3),
    FilterRule("Explanation restates the sentence (edit similarity)", RESTATES_SENTENCE,
               threshold=0.8, metric=EDIT),
    FilterRule("Explanation describes an omission", OMISSION),
)


@dataclass(frozen=True)
class CombinationConfig:
    """``weights``: each detector's relative weight (1 when not listed); ``order``: the fold
    order (detectors not listed are folded after, in the order they are given: the callers give
    them in the order workers.detectors declares them); ``similarity_threshold``: the least
    cosine similarity of two explanations for their detections to be aligned;
    ``flag_threshold``: the least combined confidence of a flag; ``rules``: the site's
    false-positive filters; ``calibration``: the active calibration of the combined score
    (workers.combine.calibration) — when set, its probability and display threshold replace
    ``flag_threshold``."""

    weights: dict[str, float] = field(default_factory=dict)
    order: tuple[str, ...] = ()
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD
    flag_threshold: float = DEFAULT_FLAG_THRESHOLD
    rules: tuple[FilterRule, ...] = DEFAULT_RULES
    enabled: frozenset[str] | None = None  # None: every detector takes part
    calibration: ScoreCalibration | None = None

    def weight(self, detector: str) -> float:
        if detector in self.weights:
            return float(self.weights[detector])
        spec = DETECTORS.get(detector)
        return spec.weight if spec is not None else 1.0

    def ordered(self, detectors) -> list[str]:
        known = [d for d in self.order if d in detectors]
        return known + [d for d in detectors if d not in self.order]

    def takes_part(self, detector: str) -> bool:
        return (self.enabled is None or detector in self.enabled) and self.weight(detector) > 0
