"""A report uploaded through the API goes through a real Celery worker: parsed, audited,
combined, and shown on the study page with explanations and harm levels."""
import pytest

from radreview.studies.models import Study
from tests.support.worker import wait_for

pytestmark = [pytest.mark.pipeline]

REPORT = ("FINDINGS: The heart is normal in size. The lungs are clear with focal consolidation. "
          "No pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality.")


def test_an_uploaded_report_gets_combined_flags_on_its_page(celery_worker, api_client, client,
                                                            radiologist):
    response = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=180, details=celery_worker.log,
    )
    assert study.status == Study.Status.READY, celery_worker.log()
    assert [j.stage for j in study.jobs.all()] == ["parse_report", "audit", "combine"]
    report = study.audited_report
    flags = report.detections.filter(detector="combined", flagged=True)
    assert flags.filter(sentence_index=1).exists(), list(report.detections.values(
        "detector", "sentence_index", "confidence", "explanation"))
    flag = flags.filter(sentence_index=1).order_by("-confidence").first()
    assert {s.detector for s in flag.sources.all()} >= {"correction", "judge"}

    client.force_login(radiologist)
    html = client.get(f"/studies/{study_id}/").content.decode()
    assert "contradicts itself" in html and flag.harm.capitalize() in html
