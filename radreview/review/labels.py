"""Detector names as a radiologist reads them on the review page and in the API: the labels
the detectors declare (workers.detectors), and the system combination's."""
from __future__ import annotations

from workers.detectors import DETECTORS

from .models import Detection

COMBINED_LABEL = "System combination"


def label_of(detector: str) -> str:
    if detector == Detection.COMBINED:
        return COMBINED_LABEL
    spec = DETECTORS.get(detector)
    return spec.label if spec is not None else detector


def short_label(detector: str) -> str:
    """The name without its parenthesis, for running text: "RadFlag", "V-RAG"."""
    return label_of(detector).split(" (")[0]
