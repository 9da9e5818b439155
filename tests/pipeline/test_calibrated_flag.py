"""Through a real Celery worker: with an active calibration, a sentence RadFlag flags is shown
as flagged on the page and in the API — with its calibration named — although the system
combination scores it below its own threshold."""
import pytest

from radreview.calibration import services
from radreview.detectors.models import CombinationSettings
from radreview.review.models import Detection
from radreview.studies.models import Study
from tests.support.worker import wait_for
from workers.radflag.calibration import CalibrationReport, CalibrationSentence, calibrate

pytestmark = [pytest.mark.pipeline]

CANDIDATE = "FINDINGS: Heart size is normal. Clear lungs. No pleural effusion."
CLEAR = 1
# "Clear lungs." is supported by 4 of the 10 samples: below λ1 = 6, above the default 3.
SAMPLES = (["FINDINGS: Heart size is normal. The lungs are clear. No pleural effusion."] * 4
           + ["FINDINGS: Heart size is normal. Right lower lobe consolidation. "
              "No pleural effusion."] * 6)


def calibration_choosing_lambda1_6(site_admin):
    """True sentences supported by 6 to 10 samples, nine of them by exactly 6: at α = 0.1,
    λ1 = 7 would flag those nine (adjusted risk 10/51), so λ1 = 6."""
    true = [CalibrationSentence("true", 6 + i % 5, True, "Lungs") for i in range(45)]
    false = [CalibrationSentence("false", 0, False, "Lungs") for _ in range(5)]
    result = calibrate([CalibrationReport("cal", 10, tuple(true + false))], alpha=0.1)
    assert result.lambda1 == 6
    calibration = services.create_calibration(result, file_name="cal.jsonl", sha256="0" * 64)
    services.activate(calibration, actor=site_admin)
    return calibration


def test_a_calibrated_radflag_flag_is_shown_though_the_combination_scores_it_low(
        celery_worker, api_client, site_admin, radiologist_client):
    calibration = calibration_choosing_lambda1_6(site_admin)
    response = api_client.post("/api/studies/", {"candidate_text": CANDIDATE, "samples": SAMPLES},
                               format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(
        lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
        message="the study to finish", timeout=180, details=celery_worker.log)
    assert study.status == Study.Status.READY, list(study.jobs.values("stage", "state", "error"))

    radflag = Detection.objects.get(report__study=study, detector="radflag")
    assert radflag.sentence_index == CLEAR and radflag.evidence["support"] == 4
    combined = Detection.objects.get(report__study=study, detector="combined",
                                     sentence_index=CLEAR)
    threshold = CombinationSettings.current().flag_threshold
    assert combined.confidence < threshold  # the combination alone would hide it
    assert combined.flagged and combined.evidence["flagged_by"] == ["radflag"]
    guarantee = f"flagged at λ1 = 6 of 10, calibration v{calibration.version}, α = 0.1"

    page = radiologist_client.get(f"/studies/{study_id}/").content.decode()
    assert f'id="sentence-{CLEAR}" data-index="{CLEAR}" data-flag' in page
    assert "1</strong> of 1 flag open" in page
    assert f"RadFlag: {guarantee}" in page

    body = api_client.get(f"/api/studies/{study_id}/review/").json()
    assert body["flags"] == 1
    flag = body["sentences"][CLEAR]["flag"]
    assert flag is not None and flag["explained"]["guarantees"] == [f"RadFlag: {guarantee}"]
    assert flag["explained"]["score"] < threshold
