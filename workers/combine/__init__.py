"""System combination of detectors (Lasko, Karakos, Keith; docs/design.md method 2).

    combine(outputs, config, embed, sentences={index: text}) -> list[CombinedResult]

folds the detectors' raw detections one at a time (``fold``: Hungarian alignment of the
explanations' embeddings within a sentence, linear interpolation of the confidences; the
explanations it compares embedded in one call, ``prefetch``), applies
the site's false-positive rules (``rules``) and flags what reaches the site threshold — or the
calibrated display threshold (``calibration``) — and every sentence a calibrated detector
flagged (``calibrated``, ``flagging``). Each result is a ``detector="combined"`` Detection with
its members (detector, index) and whether it is flagged.
"""
from __future__ import annotations

from dataclasses import dataclass

from workers.combine.config import DEFAULT_RULES, CombinationConfig, FilterRule
from workers.combine.flagging import decide, outside_the_fold
from workers.combine.fold import DetectorOutput, Embed, combined_detection, fold, member_detections
from workers.combine.prefetch import compared_explanations, prefetched
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
    # one model call for the explanations the alignment compares, not one per sentence
    order = sorted(sentences)
    embed = prefetched(embed, compared_explanations(outputs, config, order))
    items = fold(outputs, config, embed, order) + outside_the_fold(outputs, config)
    results = []
    for item in items:
        detection = combined_detection(item, by_detector, config)
        decision = decide(detection, member_detections(item, by_detector), config,
                          sentences.get(item.sentence_index, ""))
        item.removed_by = decision.removed_by
        detection.evidence.update(decision.evidence)
        results.append(CombinedResult(detection, list(item.members), decision.flagged,
                                      item.removed_by))
    return results


__all__ = ["CombinationConfig", "CombinedResult", "DEFAULT_RULES", "DetectorOutput",
           "FilterRule", "combine", "compared_explanations", "fold"]
