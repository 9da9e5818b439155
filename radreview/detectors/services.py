"""The site's combination settings as the plain ``CombinationConfig`` the workers take, with
the active calibration of the combined score (radreview/calibration/combination.py), if any."""
from __future__ import annotations

from radreview.calibration.combination import active_score_calibration
from workers.combine import config as defaults
from workers.combine.config import CombinationConfig
from workers.combine.config import FilterRule as RuleData
from workers.detectors import DETECTORS

from .models import CombinationSettings, DetectorWeight, FilterRule


def combination_enabled() -> bool:
    """Whether the site combines the detectors' detections (one read, not the whole config)."""
    return CombinationSettings.current().enabled


def combination_config() -> CombinationConfig | None:
    """The configuration the combine stage uses, or None when the site switched it off."""
    site = CombinationSettings.current()
    if not site.enabled:
        return None
    weights: dict[str, float] = {}
    order = list(DETECTORS)  # the declaration order, when the admin has set none
    rows = list(DetectorWeight.objects.all())
    if rows:
        weights.update({row.detector: row.weight for row in rows})
        order = [row.detector for row in rows] + [d for d in order
                                                  if d not in {row.detector for row in rows}]
    rules = tuple(
        RuleData(name=rule.name, kind=rule.kind, threshold=rule.threshold,
                 metric=rule.metric or defaults.JACCARD3, pattern=rule.pattern,
                 harm=rule.harm or "very low")
        for rule in FilterRule.objects.filter(enabled=True)
    )
    return CombinationConfig(weights=weights, order=tuple(order),
                             similarity_threshold=site.similarity_threshold,
                             flag_threshold=site.flag_threshold, rules=rules,
                             calibration=active_score_calibration())
