"""No patient identifiers in any log: a full pipeline run of a DICOM study, with the worker and
the web side logging at DEBUG, then the study read and reviewed, and every log line scanned for
the test patient's name, ID and accession number."""
import logging

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.studies.models import Study
from tests.support import dicom_factory as dicom
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline]

PATIENT = {"patient_name": "Quixote^Alonso", "patient_id": "MRN-4417-2290",
           "accession": "ACC-99317"}
SECRETS = ("Quixote", "Alonso", "MRN-4417-2290", "ACC-99317")
REPORT = "FINDINGS: Small left pleural effusion. Heart size is normal.\nIMPRESSION: Effusion."


@pytest.fixture
def debug_worker(transactional_db):
    worker = WorkerProcess(name="phi-scan", log_level="DEBUG")
    worker.start()
    yield worker
    worker.stop()


def test_a_full_pipeline_run_logs_no_patient_identifier(debug_worker, api_client,
                                                       radiologist_client, caplog):
    caplog.set_level(logging.DEBUG)
    files = [SimpleUploadedFile("chest.dcm", dicom.make_dicom(study_uid="1.2.3.77", **PATIENT))]
    response = api_client.post("/api/studies/", {"files": files, "report_text": REPORT},
                               format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    study = wait_for(lambda: Study.objects.filter(
        pk=study_id, status__in=[Study.Status.READY, Study.Status.FAILED]).first(),
        timeout=300, message="the study to finish", details=debug_worker.log)
    assert study.status == Study.Status.READY, debug_worker.log()
    assert study.patient_name == "Quixote^Alonso"  # the identifiers were read and stored
    # Reading the study shows the identifiers to the reviewer; it must not log them either.
    assert "Quixote" in radiologist_client.get(f"/studies/{study_id}/").content.decode()
    assert api_client.get(f"/api/studies/{study_id}/").json()["patient_id"] == "MRN-4417-2290"
    worker_log = debug_worker.log()
    assert "DEBUG" in worker_log and f"study {study_id}" in worker_log  # it did log, verbosely
    for secret in SECRETS:
        assert secret not in worker_log, f"{secret} in the worker's log"
        assert secret not in caplog.text, f"{secret} in the web side's log"
