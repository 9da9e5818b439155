"""The six kinds of error radiologists count when they compare a report with a reference.

They are the error categories of the ReXVal study (Yu et al., "Evaluating progress in automatic
chest X-ray radiology report generation", Patterns 2023), in which radiologists counted, per
candidate report, the clinically significant and insignificant errors of each kind. The order
is the order pages and tables show them in.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    description: str


FALSE_FINDING = "false_finding"
MISSING_FINDING = "missing_finding"
LOCATION = "location"
SEVERITY = "severity"
FALSE_COMPARISON = "false_comparison"
MISSING_COMPARISON = "missing_comparison"

CATEGORIES: tuple[Category, ...] = (
    Category(FALSE_FINDING, "False finding",
             "The candidate states a finding the reference does not have, or denies."),
    Category(MISSING_FINDING, "Missing finding",
             "The candidate omits or denies a finding the reference states, or omits a "
             "finding the reference rules out."),
    Category(LOCATION, "Wrong location or side",
             "Both state the finding, in different places or on different sides."),
    Category(SEVERITY, "Wrong severity",
             "Both state the finding, with different severity or size."),
    Category(FALSE_COMPARISON, "False comparison",
             "The candidate compares with a prior exam the reference does not refer to, or "
             "states a change the reference contradicts."),
    Category(MISSING_COMPARISON, "Missing comparison",
             "The candidate states a finding without the change from the prior exam that the "
             "reference describes."),
)
KEYS: tuple[str, ...] = tuple(c.key for c in CATEGORIES)
BY_KEY: dict[str, Category] = {c.key: c for c in CATEGORIES}


def label_of(key: str) -> str:
    return BY_KEY[key].label
