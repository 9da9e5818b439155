"""End to end through a real Celery worker: a study uploaded with its candidate and 10 samples
made elsewhere is flagged by RadFlag with the active calibration."""
import pytest

from radreview.calibration import services
from radreview.calibration.models import StudyRadFlag
from radreview.review.models import Detection
from radreview.studies.models import Study
from tests.support.worker import wait_for

from .helpers import CANDIDATE, SAMPLES, make_calibration

pytestmark = [pytest.mark.pipeline]


def test_uploaded_candidate_and_samples_are_flagged_with_the_active_calibration(
        celery_worker, api_client, site_admin, radiologist_client):
    calibration = make_calibration(alpha=0.2, target=0.0)
    services.activate(calibration, actor=site_admin)
    response = api_client.post(
        "/api/studies/",
        {
            "candidate_text": CANDIDATE,
            "samples": SAMPLES,
            "sample_temperature": 1.0,
            "generator_name": "vendor-cxr",
        },
        format="multipart",
    )
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]

    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish",
        timeout=120,
        details=celery_worker.log,
    )
    assert study.status == Study.Status.READY, (
        list(study.jobs.values("stage", "state", "error")),
        celery_worker.log(),
    )
    assert [job.stage for job in study.jobs.all()] [:2] == ["parse_report", "radflag"]

    result = StudyRadFlag.objects.get(study=study)
    assert result.calibration == calibration and result.n_samples == 10
    flagged = list(Detection.objects.filter(report__study=study, detector="radflag", flagged=True))
    assert {d.sentence_index for d in flagged} == {
        s["index"] for s in result.sentences if s["flagged"]
    }
    assert {1, 3} <= {
        d.sentence_index for d in flagged
    }  # the weak effusion and the unseen consolidation
    assert all(d.evidence["calibration"] == calibration.pk for d in flagged)
    assert result.report_flagged and all(d.evidence["report_flagged"] for d in flagged)

    page = radiologist_client.get(f"/studies/{study_id}/").content.decode()
    assert 'id="report-warning"' in page and "supported by <strong>0 of 10</strong>" in page
