"""RadReview's DICOMweb (QIDO-RS, WADO-RS) read with the dicomweb-client package, and
RadReview reading Orthanc's DICOMweb for "Import from PACS" (the retrieval runs in a real
worker)."""
import io

import numpy as np
import pydicom
import pytest
from dicomweb_client.api import DICOMwebClient
from knox.models import AuthToken

from radreview.dicomnet import pacs_import
from radreview.jobs.models import Job
from radreview.studies.models import Study
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.dicom_study import make_dicom_review_study
from tests.support.worker import WorkerProcess, wait_for
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def dicomweb(live_server, radiologist):
    token = AuthToken.objects.create(radiologist)[1]
    return DICOMwebClient(url=f"{live_server.url}/api/dicomweb",
                          headers={"Authorization": f"Token {token}"})


def test_qido_finds_our_studies_by_patient_accession_and_date(dicomweb):
    make_dicom_review_study()
    found = dicomweb.search_for_studies(search_filters={"PatientID": "P-0042"})
    assert [pydicom.Dataset.from_json(s).StudyInstanceUID for s in found] == [rf.STUDY_UID]
    study = pydicom.Dataset.from_json(found[0])
    assert study.AccessionNumber == "ACC-7" and study.NumberOfStudyRelatedInstances == 2
    assert dicomweb.search_for_studies(search_filters={"AccessionNumber": "ACC-7"})
    assert dicomweb.search_for_studies(search_filters={"StudyDate": "20260301-20260331"})
    assert not dicomweb.search_for_studies(search_filters={"PatientID": "someone-else"})
    series = dicomweb.search_for_series(rf.STUDY_UID)
    assert [pydicom.Dataset.from_json(s).SeriesInstanceUID for s in series] == [rf.SERIES_UID]
    instances = dicomweb.search_for_instances(rf.STUDY_UID, rf.SERIES_UID)
    assert {pydicom.Dataset.from_json(i).SOPInstanceUID for i in instances} == set(rf.SOP_UIDS)


def test_wado_retrieves_instances_metadata_and_frames(dicomweb):
    study = make_dicom_review_study()
    retrieved = dicomweb.retrieve_study(rf.STUDY_UID)
    assert {ds.SOPInstanceUID for ds in retrieved} == set(rf.SOP_UIDS)
    image = study.images.order_by("position").first()
    stored = pydicom.dcmread(io.BytesIO(media.read(image.original.name)))
    metadata = dicomweb.retrieve_instance_metadata(rf.STUDY_UID, rf.SERIES_UID,
                                                   image.sop_instance_uid)
    assert pydicom.Dataset.from_json(metadata).Rows == stored.Rows
    frame = dicomweb.retrieve_instance_frames(rf.STUDY_UID, rf.SERIES_UID,
                                              image.sop_instance_uid, frame_numbers=[1])[0]
    pixels = np.frombuffer(frame, dtype="<u2").reshape(stored.Rows, stored.Columns)
    assert np.array_equal(pixels, stored.pixel_array)


def test_dicomweb_needs_a_login(live_server):
    anonymous = DICOMwebClient(url=f"{live_server.url}/api/dicomweb")
    with pytest.raises(Exception) as refused:
        anonymous.search_for_studies()
    assert "401" in str(refused.value) or "403" in str(refused.value)


@pytest.fixture
def pacs_worker(orthanc, settings, transactional_db):
    """A real worker reading Orthanc as its PACS, like the web side (set as a site would)."""
    settings.PACS_DICOMWEB_URL = orthanc.dicomweb
    worker = WorkerProcess("pacs", RADREVIEW_PACS_DICOMWEB_URL=orthanc.dicomweb)
    worker.start()
    yield worker
    worker.stop()


def ask_for_import(client, uid) -> tuple[Job, str]:
    """Press "Import": the request queues a job and sends the radiologist to its page."""
    response = client.post("/studies/import/retrieve/", {"study_instance_uid": uid})
    assert response.status_code == 302
    job = Job.objects.get(stage=pacs_import.STAGE, params__study_instance_uid=uid,
                          pk=int(response["Location"].strip("/").rsplit("/", 1)[1]))
    assert response["Location"] == f"/studies/import/{job.pk}/"
    return job, response["Location"]


def finished(client, job, location, worker) -> str:
    """The import's page once the worker has finished the job."""
    wait_for(lambda: Job.objects.get(pk=job.pk).is_finished, timeout=90,
             message="the import job to finish", details=worker.log)
    job.refresh_from_db()
    return client.get(location).content.decode()


def test_import_from_pacs_runs_in_a_worker_and_links_the_study(orthanc, pacs_worker,
                                                               radiologist, radiologist_client):
    uid = "1.2.826.0.1.3680043.10.999.40"
    for number, view in enumerate(("PA", "LATERAL")):
        orthanc.upload(dicom.make_dicom(study_uid=uid, series_uid=f"{uid}.1",
                                        sop_uid=f"{uid}.1.{number}", view=view, seed=number,
                                        patient_id="PACS-77", accession="ACC-PACS"))
    page = radiologist_client.get("/studies/import/", {"patient_id": "PACS-77"}).content.decode()
    assert f'data-uid="{uid}"' in page and "ACC-PACS" in page

    job, location = ask_for_import(radiologist_client, uid)
    assert job.created_by == radiologist and job.queue == "cpu"
    page = finished(radiologist_client, job, location, pacs_worker)
    assert job.state == Job.State.DONE, job.error
    study = Study.objects.get(study_instance_uid=uid)
    assert job.result["study"] == study.pk and job.progress_note == "2 of 2 instances retrieved"
    assert "Retrieved 2 instances" in page and f'href="/studies/{study.pk}/"' in page
    assert "hx-trigger" not in page  # finished: the panel stops polling
    assert f"PACS import job {job.pk}: study {study.pk}" in pacs_worker.log()
    assert study.source == Study.Source.PACS and study.images.count() == 2
    assert study.uploaded_by == radiologist
    assert media.stored(pacs_import.FOLDER) == []

    # Found again, the study is offered as the one already imported, not a second import.
    page = radiologist_client.get("/studies/import/", {"accession_number": "ACC-PACS"})
    assert f"Open study #{study.pk}" in page.content.decode()
    again = radiologist_client.post("/studies/import/retrieve/", {"study_instance_uid": uid})
    assert again["Location"] == f"/studies/{study.pk}/"
    assert Study.objects.filter(study_instance_uid=uid).count() == 1
    assert Job.objects.filter(stage=pacs_import.STAGE).count() == 1


def test_an_import_waits_for_a_worker_and_is_asked_for_once(settings, radiologist_client):
    settings.PACS_DICOMWEB_URL = "http://127.0.0.1:9/dicom-web"  # no worker reads it here
    uid = "1.2.826.0.1.3680043.10.999.42"
    job, location = ask_for_import(radiologist_client, uid)
    assert ask_for_import(radiologist_client, uid)[0] == job
    assert Job.objects.filter(stage=pacs_import.STAGE).count() == 1
    panel = radiologist_client.get(location, HTTP_HX_REQUEST="true").content.decode()
    assert "Waiting for a worker" in panel and 'hx-trigger="every 1s"' in panel
    assert "<html" not in panel  # the panel alone, for polling
    recent = radiologist_client.get("/studies/import/").content.decode()
    assert f'data-job="{job.pk}" data-state="queued"' in recent


def test_a_failed_import_keeps_its_reason_and_shows_it(orthanc, pacs_worker, radiologist_client):
    # A report (DICOM SR) on the PACS: retrieved, then refused by the upload's checks.
    report = dicom.make_sr_dicom()
    uid = pydicom.dcmread(io.BytesIO(report)).StudyInstanceUID
    orthanc.upload(report)
    job, location = ask_for_import(radiologist_client, uid)
    page = finished(radiologist_client, job, location, pacs_worker)
    assert job.state == Job.State.FAILED and "holds no image" in job.error
    assert "The study was not imported" in page and "holds no image" in page
    assert "Try again" in page
    assert not Study.objects.filter(study_instance_uid=uid).exists()
    assert media.stored(pacs_import.FOLDER) == []

    # A study the PACS does not have.
    missing, location = ask_for_import(radiologist_client, "1.2.826.0.1.3680043.10.999.41")
    page = finished(radiologist_client, missing, location, pacs_worker)
    assert missing.state == Job.State.FAILED
    assert "The PACS has no instances of this study" in page

    # The search page keeps both, with their reasons.
    listed = radiologist_client.get("/studies/import/").content.decode()
    assert listed.count('data-state="failed"') == 2 and "holds no image" in listed


def test_import_says_when_the_pacs_cannot_be_reached(settings, radiologist_client):
    settings.PACS_DICOMWEB_URL = "http://127.0.0.1:9/dicom-web"
    page = radiologist_client.get("/studies/import/", {"patient_id": "X"}).content.decode()
    assert "The PACS could not be reached" in page
