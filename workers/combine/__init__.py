"""System combination of detectors (Lasko, Karakos, Keith; docs/design.md method 2).

    combine(outputs, config, embed, sentences={index: text}) -> list[CombinedResult]

folds the detectors' raw detections one at a time (``fold``: Hungarian alignment of the
explanations' embeddings within a sentence, linear interpolation of the confidences), applies
the site's false-positive rules (``rules``) and flags what reaches the site threshold. Each
result is a ``detector="combined"`` Detection with its members (detector, index) and whether
it is flagged.
"""
from __future__ import annotations

from dataclasses import dataclass

from workers.combine.config import (DEFAULT_RULES, CombinationConfig, FilterRule)
from workers.combine.fold import DetectorOutput, Embed, combined_detection, fold
from workers.combine.rules import first_match
from workers.types import Detection


@dataclass(frozen=True)
class CombinedResult:
    detection: Detection
    members: list[tuple[str, int]]
    flagged: bool
    removed_by: str | None


def combine(outputs: list[DetectorOutput], config: CombinationConfig, embed: Embed,
            sentences: dict[int, str]) -> list[CombinedResult]:
    by_detector = {o.detector: o.detections for o in outputs}
    items = fold(outputs, config, embed, sorted(sentences))
    results = []
    for item in items:
        detection = combined_detection(item, by_detector, config)
        rule = first_match(config.rules, detection, sentences.get(item.sentence_index, ""))
        if rule is not None:
            item.removed_by = rule.name
            detection.evidence["filtered_by"] = rule.name
        flagged = rule is None and detection.confidence >= config.flag_threshold
        results.append(CombinedResult(detection, list(item.members), flagged, item.removed_by))
    return results


__all__ = ["CombinationConfig", "CombinedResult", "DEFAULT_RULES", "DetectorOutput",
           "FilterRule", "combine", "fold"]
