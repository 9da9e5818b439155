"""Detector names as a radiologist reads them on the review page and in the API."""
from __future__ import annotations

DETECTOR_NAMES = {
    "radflag": "RadFlag (sampling and entailment)",
    "vrag": "V-RAG (image retrieval and probing)",
    "correction": "Three-stage correction",
    "judge": "Consistency judge",
    "comparative": "Comparison without a prior",
    "rarrg": "RA-RRG key phrases",
    "combined": "System combination",
}


def label_of(detector: str) -> str:
    return DETECTOR_NAMES.get(detector, detector)


def short_label(detector: str) -> str:
    """The name without its parenthesis, for running text: "RadFlag", "V-RAG"."""
    return label_of(detector).split(" (")[0]
