"""Detections travel from workers to the database and back unchanged."""
import pytest

from radreview.audit.models import AuditEvent
from radreview.review.selectors import as_worker_detection
from radreview.review.services import store_detections
from tests import factories
from workers.types import Detection, Harm


@pytest.mark.django_db
def test_detections_are_attached_to_their_sentences_audited_and_round_trip():
    report = factories.make_report(
        factories.make_study(), "FINDINGS: Pneumothorax. Heart is normal."
    )
    found = Detection(
        sentence_index=0,
        start=10,
        end=23,
        detector="judge",
        explanation="contradicted",
        harm=Harm.HIGH,
        confidence=0.8,
        evidence={"rule": "contradiction"},
        suggestion="No pneumothorax.",
        prompt_version="judge/v1",
        model="tiny",
    )
    [row] = store_detections(report, [found])
    assert row.sentence.text == "Pneumothorax." and row.harm == "high"
    assert as_worker_detection(row) == found
    assert AuditEvent.objects.get(action="flags_raised").detail["detector"] == "judge"


@pytest.mark.django_db
def test_a_detection_without_a_matching_sentence_is_kept_at_report_level():
    report = factories.make_report(factories.make_study(), "FINDINGS: Heart is normal.")
    [row] = store_detections(
        report, [Detection(7, 0, 0, "radflag", "report flagged", Harm.LOW, 0.5)]
    )
    assert row.sentence is None and row.sentence_index == 7
