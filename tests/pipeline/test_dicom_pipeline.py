"""DICOM studies through a real worker: previews appear, and a worker killed mid-stage loses
no work — the next worker picks the job up and no stage is stored twice."""
import io

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image as PILImage

from radreview.audit.models import AuditEvent
from radreview.jobs.models import Job
from radreview.studies.models import Study
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline]

REPORT = "FINDINGS: No pneumothorax. Heart size is normal.\nIMPRESSION: No acute disease."


def finished(study_id):
    return Study.objects.filter(
        pk=study_id, status__in=[Study.Status.READY, Study.Status.FAILED]
    ).first()


def test_monochrome1_and_monochrome2_studies_get_matching_previews(celery_worker, api_client):
    density = dicom.chest_phantom(seed=5, rows=256, cols=256)
    files = [
        SimpleUploadedFile(
            f"{name}.dcm", dicom.make_dicom(density=density, photometric=name, study_uid="1.2.3.9")
        )
        for name in ("MONOCHROME1", "MONOCHROME2")
    ]
    response = api_client.post(
        "/api/studies/", {"files": files, "report_text": REPORT}, format="multipart"
    )
    assert response.status_code == 201, response.content
    study = wait_for(
        lambda: finished(response.json()["studies"][0]["id"]),
        message="the study to finish",
        details=celery_worker.log,
    )
    assert study.status == Study.Status.READY, celery_worker.log()

    previews = []
    for image in study.images.order_by("position"):
        assert image.preview and image.thumbnail
        with PILImage.open(io.BytesIO(media.read(image.preview))) as png:
            assert png.mode == "L" and png.size == (256, 256)
            previews.append(np.asarray(png, dtype=np.int16))
        with PILImage.open(io.BytesIO(media.read(image.thumbnail))) as png:
            assert max(png.size) <= 256
    # Both photometric interpretations display the same anatomy the same way round.
    assert np.abs(previews[0] - previews[1]).mean() < 2
    assert study.reports.get().sentences.count() == 3


def test_a_worker_killed_mid_stage_loses_nothing_and_runs_no_stage_twice(
    transactional_db, api_client
):
    pixels = dicom.stored_values(dicom.chest_phantom(seed=1, rows=2048, cols=2048), bits=12)
    files = [
        SimpleUploadedFile(
            f"view-{i}.dcm",
            dicom.make_dicom(
                pixels=pixels, rows=2048, cols=2048, compress="jpeg2000", study_uid="1.2.3.10"
            ),
        )
        for i in range(24)
    ]
    response = api_client.post(
        "/api/studies/", {"files": files, "report_text": REPORT}, format="multipart"
    )
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]

    first = WorkerProcess("first")
    first.start()
    try:
        wait_for(
            lambda: Job.objects.filter(
                study_id=study_id, stage="ingest", state=Job.State.RUNNING, progress__gt=0
            ).exists(),
            message="the ingest stage to be under way",
            interval=0.05,
        )
    finally:
        first.kill()
    ingest = Job.objects.get(study_id=study_id, stage="ingest")
    assert ingest.state == Job.State.RUNNING and ingest.progress < 1.0, (
        "the kill came too late to test anything"
    )

    second = WorkerProcess("second")
    second.start()
    try:
        study = wait_for(
            lambda: finished(study_id),
            message="the study to finish after the restart",
            details=lambda: (
                f"jobs: {list(Job.objects.filter(study_id=study_id).values())}\n{second.log()}"
            ),
        )
    finally:
        second.stop()
    assert study.status == Study.Status.READY, second.log()

    ingest.refresh_from_db()
    assert ingest.state == Job.State.DONE and ingest.attempts == 2
    assert (
        AuditEvent.objects.filter(
            study=study, action="stage_requeued", detail__stage="ingest"
        ).count()
        == 1
    )
    for stage in ("ingest", "parse_report"):
        assert (
            AuditEvent.objects.filter(study=study, action="stage_done", detail__stage=stage).count()
            == 1
        )
    assert all(
        image.preview and media.exists(image.preview) for image in study.images.all()
    )
