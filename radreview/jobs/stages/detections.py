"""Storing what detectors found: every detector stage writes its detections through here."""
from __future__ import annotations

from radreview.review.models import Detection
from radreview.studies.models import Report
from workers import types


def store_detections(report: Report, detections: list[types.Detection]) -> list[Detection]:
    """Save ``detections`` (plain dataclasses) as rows attached to ``report`` and its sentences."""
    sentences = {sentence.index: sentence for sentence in report.sentences.all()}
    return Detection.objects.bulk_create(
        Detection(
            report=report,
            sentence=sentences.get(d.sentence_index),
            sentence_index=d.sentence_index,
            start=d.start,
            end=d.end,
            detector=d.detector,
            explanation=d.explanation,
            harm=d.harm.value,
            confidence=d.confidence,
            evidence=d.evidence,
            suggestion=d.suggestion,
            prompt_version=d.prompt_version or "",
            model_name=d.model or "",
        )
        for d in detections
    )


def as_dataclass(row: Detection) -> types.Detection:
    """A stored detection back as the plain dataclass the workers understand."""
    return types.Detection(
        sentence_index=row.sentence_index, start=row.start, end=row.end, detector=row.detector,
        explanation=row.explanation, harm=row.harm, confidence=row.confidence,
        evidence=row.evidence, suggestion=row.suggestion,
        prompt_version=row.prompt_version or None, model=row.model_name or None,
    )
