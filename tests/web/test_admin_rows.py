"""Rows are named by what they are — in the Django admin and in the audit trail — and a
sentence has one number everywhere, counted from 1 as on the review page."""
import pytest

from radreview.audit.models import AuditEvent
from radreview.review import services as review
from radreview.review.models import Detection
from radreview.studies.models import Report
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def test_rows_say_what_they_are():
    study = rf.make_review_study()
    report = study.audited_report
    sentence = report.sentences.get(index=rf.EFFUSION)
    assert str(sentence) == (f"Study {study.pk}, sentence 3: "
                             "'There is a small left pleural effusion.'")
    assert str(report) == f"Study {study.pk}, uploaded report"
    sample = study.reports.get(kind=Report.Kind.SAMPLE, sample_index=0)
    assert str(sample) == f"Study {study.pk}, sample 1"
    flag = Detection.objects.get(report=report, detector="combined", sentence_index=rf.NODULE)
    assert str(flag) == f"Study {study.pk}, sentence 4: combined detection (flag)"
    assert str(study.images.first()) == f"Study {study.pk}, image 1 (PA)"
    long = report.sentences.get(index=rf.TUBE)
    assert str(long).endswith("'The endotracheal tube tip is 3 cm above the carina.'")


def test_the_admin_lists_decisions_and_detections_by_name(admin_client_, radiologist):
    study = rf.make_review_study()
    review.decide(study, radiologist, action="reject", sentence_index=rf.NODULE, version=0)
    decisions = admin_client_.get("/admin/review/decision/").content.decode()
    assert f"Study {study.pk}, sentence 4: &#x27;A right upper lobe nodule measures 2 cm.&#x27;" \
        in decisions
    assert "Sentence object" not in decisions
    detections = admin_client_.get("/admin/review/detection/").content.decode()
    assert f"Study {study.pk}, sentence 4: vrag detection" in detections
    assert "object (" not in detections


def test_the_audit_trail_numbers_sentences_as_the_review_page_does(radiologist_client, radiologist):
    study = rf.make_review_study(uploaded_by=radiologist)
    review.decide(study, radiologist, action="reject", sentence_index=rf.NODULE, version=0)
    event = AuditEvent.objects.get(action="review_decision")
    assert event.detail["sentence_number"] == 4 and "sentence" not in event.detail
    # An event written before the numbers were counted from 1 named the index.
    AuditEvent.objects.create(action="review_undo", study=study,
                              detail={"decision": 1, "sentence": rf.NODULE, "version": 1})
    trail = radiologist_client.get(f"/studies/{study.pk}/audit/").content.decode()
    assert trail.count('<span class="k">sentence_number</span> 4') == 2
    page = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="panel-title-3">Sentence 4 <small>' in page
