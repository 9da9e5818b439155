"""Whether a combined detection is shown as a flag, and what the panel says about it.

A combined detection is flagged by

* **its score**: the combined score reaches the site's flag threshold or, once the combination
  is calibrated (workers.combine.calibration), its probability of error reaches the calibrated
  display threshold — unless a site rule removes it;
* **a calibrated member** (workers.combine.calibrated): a member flagged under a guarantee
  (RadFlag with an active calibration) stands whatever the score. Only a site rule that matches
  that member's own detection removes it; a rule that matches only the combination's
  explanation (another member's words) does not, and the evidence says so.

Detectors that do not take part in the fold (weight 0, or switched off for the combination)
add nothing to any score, but their calibrated flags still stand, each as a combined detection
of its own (``outside_the_fold``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workers.combine.benchmark import shipped as shipped_benchmark
from workers.combine.calibrated import guarantee_of
from workers.combine.config import OMISSION, CombinationConfig
from workers.combine.fold import Combined, DetectorOutput
from workers.combine.rules import first_match
from workers.detectors import DETECTORS
from workers.types import Detection, Harm


@dataclass(frozen=True)
class FlagDecision:
    flagged: bool
    removed_by: str | None
    evidence: dict[str, Any]


def decide(detection: Detection, members: list[Detection], config: CombinationConfig,
           sentence: str) -> FlagDecision:
    """The flag of a combined ``detection`` made of ``members``, on a sentence of this text."""
    score = detection.confidence
    calibration = config.calibration
    by_score = calibration.flags(score) if calibration else score >= config.flag_threshold
    rule = first_match(config.rules, detection, sentence)
    if rule is not None and rule.kind == OMISSION and _omission_is_the_finding(detection, members):
        rule = None
    standing, removed = [], []
    for member in members:
        guarantee = guarantee_of(member)
        if guarantee is None:
            continue
        own_rule = first_match(config.rules, member, sentence)
        if own_rule is None:
            standing.append(guarantee)
        else:
            removed.append({**guarantee, "removed_by": own_rule.name})
    flagged_by = [g["detector"] for g in standing]
    if by_score and rule is None:
        flagged_by.insert(0, "combination" if calibration else "score")
    # One number for the radiologist: the site's calibration when there is one, else the map
    # shipped from the bundled benchmarks (labelled so on the page; it flags nothing).
    reading = calibration or shipped_benchmark()
    evidence = {
        "score": score,
        "probability": reading.probability(score) if reading else None,
        "score_calibration": calibration.describe() if calibration else None,
        "benchmark_calibration": (reading.describe() if reading and not calibration
                                  else None),
        "flagged_by": flagged_by,
        "calibrated_flags": standing,
        "calibrated_removed": removed,
        # A rule removes the flag only when no calibrated flag stands against it.
        "filtered_by": rule.name if rule is not None and not standing else None,
        "rule_not_applied": rule.name if rule is not None and standing else None,
        **harm_source(members),
    }
    return FlagDecision(bool(flagged_by), evidence["filtered_by"], evidence)


def _omission_is_the_finding(detection: Detection, members: list[Detection]) -> bool:
    """The combination speaks with the words of a detector whose flags are omissions by design
    (``DetectorSpec.flags_omissions``: a prior finding dropped without a word): the omission
    rule, written for explanations that only miss a detail, does not apply to it."""
    for member in members:
        spec = DETECTORS.get(member.detector)
        if spec is not None and spec.flags_omissions \
                and member.explanation == detection.explanation:
            return True
    return False


def harm_source(members: list[Detection]) -> dict[str, Any]:
    """The member that set the combined harm (the highest; the most confident among equals)."""
    top = max(members, key=lambda d: (Harm(d.harm).rank, d.confidence))
    return {"harm_set_by": top.detector,
            "member_harms": {d.detector: Harm(d.harm).value for d in members}}


def outside_the_fold(outputs: list[DetectorOutput], config: CombinationConfig) -> list[Combined]:
    """A combined item (score 0) for each calibrated flag of a detector that takes no part."""
    items = []
    for output in outputs:
        if config.takes_part(output.detector):
            continue
        for j, detection in enumerate(output.detections):
            if guarantee_of(detection) is not None:
                items.append(Combined(
                    detection.sentence_index, detection.start, detection.end, 0.0,
                    [(output.detector, j)], [detection.explanation],
                    steps=[{"detector": output.detector, "event": "no_part", "w": 0.0,
                            "after": 0.0, "own": round(detection.confidence, 4)}]))
    return items
