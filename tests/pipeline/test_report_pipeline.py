"""A report uploaded through the API goes through a real Celery worker to sentences."""
import pytest

from radreview.jobs.models import Job
from radreview.studies.models import Study
from tests.support.worker import wait_for

pytestmark = [pytest.mark.pipeline]

REPORT = (
    "FINDINGS: The cardiomediastinal silhouette is within normal limits. "
    "There is no pneumothorax or pleural effusion.\n"
    "IMPRESSION: No acute cardiopulmonary abnormality."
)


def test_uploaded_report_is_split_into_sentences_by_the_worker(celery_worker, api_client):
    response = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]

    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=120, details=celery_worker.log,
    )
    assert study.status == Study.Status.READY, celery_worker.log()
    assert [job.stage for job in study.jobs.all()][:1] == ["parse_report"]
    assert all(job.state == Job.State.DONE for job in study.jobs.all())

    body = api_client.get(f"/api/studies/{study_id}/").json()
    sentences = body["reports"][0]["sentences"]
    assert [s["section"] for s in sentences] == ["findings", "findings", "impression"]
    assert sentences[-1]["text"] == "No acute cardiopulmonary abnormality."
