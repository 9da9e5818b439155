"""The media's object store stopped for real (moto's S3 server killed) and started again, in
either pass (the test brings its own store): an upload answers 503 with Retry-After and stores
nothing half (no study row without its file, no file without its row); a stage that meets the
outage goes back to the queue instead of failing the study, and the running worker's
reconciler finishes it once the store is back."""
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken
from rest_framework.test import APIClient

from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.jobs.runner import STORE_WAIT
from radreview.media import intents
from radreview.media.models import UploadIntent
from radreview.studies.models import Image, Report, Study
from radreview.studies.services import upload as upload_service
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.worker import WorkerProcess, wait_for
from workers.pipeline import StudyInputs

pytestmark = [pytest.mark.pipeline]

REPORT = "FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: No acute disease."
FAST_RECONCILE = {"RADREVIEW_RECONCILE_SECONDS": "1", "RADREVIEW_JOB_RESEND_AFTER_SECONDS": "2"}


def api(user) -> APIClient:
    client = APIClient(raise_request_exception=False)  # answered as a server would answer
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    return client


def post_images(client, count: int):
    files = [SimpleUploadedFile(f"view{n}.dcm",
                                dicom.make_dicom(study_uid="1.2.3", sop_uid=f"1.2.3.4.{n}"),
                                content_type="application/dicom") for n in range(count)]
    return client.post("/api/studies/", {"files": files, "report_text": REPORT},
                       format="multipart")


def assert_refused_with_503(response, settings) -> None:
    assert response.status_code == 503, response.content[:300]
    assert response["Retry-After"] == str(settings.OUTAGE_RETRY_AFTER_SECONDS)
    assert "cannot reach its file store" in response.json()["detail"]
    assert not Study.objects.exists() and not Image.objects.exists()
    assert not Report.objects.exists()


def test_an_upload_while_the_store_is_down_answers_503_and_stores_nothing(
        object_store, radiologist, settings, transactional_db):
    kept = object_store.stop()
    assert_refused_with_503(post_images(api(radiologist), 2), settings)
    object_store.start_with(kept)
    assert media.stored() == []
    # Once it is back, the same upload goes through.
    assert post_images(api(radiologist), 2).status_code == 201
    assert len(media.stored("originals")) == 2


def test_the_store_stopping_between_two_files_leaves_them_to_the_sweep(
        object_store, radiologist, settings, transactional_db, monkeypatch):
    """The first file is stored, the store dies before the second: no rows, and the stored
    file is removed by the sweep once the store answers (the upload could not remove it)."""
    bucket = {}

    def stop_after_first(name, content):
        stored = default_storage.save(name, content)
        bucket.update(object_store.stop())  # a crash of the store, its objects kept
        return stored

    monkeypatch.setattr(upload_service, "default_storage",
                        type("Once", (), {"save": staticmethod(stop_after_first)})())
    assert_refused_with_503(post_images(api(radiologist), 2), settings)
    intent = UploadIntent.objects.get()
    assert intent.state == UploadIntent.State.PENDING  # the upload could not clean up
    object_store.start_with(bucket)
    [leftover] = media.stored()
    assert leftover in intent.files
    assert intents.sweep(older_than=0) == 1
    assert media.stored() == []
    assert UploadIntent.objects.get().state == UploadIntent.State.CLEANED


def test_a_stage_that_meets_the_outage_waits_and_the_reconciler_finishes_it(
        object_store, radiologist, transactional_db):
    worker = WorkerProcess(name="store-outage", **FAST_RECONCILE)
    worker.start()
    try:
        # The study's file is stored while the store is up; then the store goes down and the
        # study's stages are queued: the first (previews) needs the file.
        name = default_storage.save("originals/outage/000.dcm",
                                    SimpleUploadedFile("x.dcm", dicom.make_dicom()))
        kept = object_store.stop()
        study = Study.objects.create(uploaded_by=radiologist)
        Image.objects.create(study=study, position=0, kind="dicom", original=name,
                             sha256="0" * 64, size_bytes=1)
        Report.objects.create(study=study, kind=Report.Kind.UPLOADED, text=REPORT,
                              created_by=radiologist)
        jobs.start_study(study, StudyInputs(has_report=True, has_images=True))
        ingest = Job.objects.get(study=study, stage="ingest")
        wait_for(lambda: Job.objects.filter(pk=ingest.pk, state=Job.State.QUEUED,
                                            progress_note=STORE_WAIT, attempts__gte=1).exists(),
                 timeout=60, message="the ingest stage to wait for the store",
                 details=worker.log)
        assert Study.objects.get(pk=study.pk).status != Study.Status.FAILED
        object_store.start_with(kept)
        wait_for(lambda: Study.objects.get(pk=study.pk).status == Study.Status.READY,
                 timeout=120, message="the study to finish", details=worker.log)
        image = Image.objects.get(study=study)
        assert media.exists(image.preview) and media.exists(image.thumbnail)
        assert not Job.objects.filter(study=study, state=Job.State.FAILED).exists()
    finally:
        worker.stop()
