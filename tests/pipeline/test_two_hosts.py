"""Three "hosts": a web server and two Celery workers that share nothing on disk — each has its
own data, media, index and temporary folders — against one PostgreSQL, one Redis and one
S3-compatible server (issue 34; scripts/test.sh's second pass). 200 studies go through the
web server, report-only and with DICOM images: every one is done, every stage stored once,
both workers took part, and no process kept a medium of its own (a worker that reached for a
local path would find its own empty folders and fail the study)."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest
import requests
from django.db import connection
from knox.models import AuthToken

from radreview.jobs.models import Job
from radreview.library import image_import
from radreview.studies.models import Image, Study
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.process_groups import stop_all
from tests.support.webserver import WebServer
from tests.support.worker import WorkerProcess, wait_for
from tests.web.images.library_files import folder_per_study

from .test_faults import assert_each_stage_done_once, job_table

pytestmark = [pytest.mark.pipeline, pytest.mark.django_db(transaction=True)]

REPORT = ("FINDINGS: Heart size is normal. There is a small left pleural effusion. No "
          "pneumothorax.\nIMPRESSION: Small left pleural effusion.")
STUDIES, WITH_IMAGES = 200, 20


def host(root: Path, name: str) -> dict[str, str]:
    """A host's own folders, as the environment of the process that plays it."""
    folders = {key: root / name / key for key in ("data", "media", "indexes", "tmp")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    # tests/settings.py keeps a process's data folder only when it is its session's
    return {"RADREVIEW_DATA_DIR": str(folders["data"]),
            "RADREVIEW_TEST_SESSION_DATA_DIR": str(folders["data"]),
            "RADREVIEW_MEDIA_ROOT": str(folders["media"]),
            "RADREVIEW_INDEX_DIR": str(folders["indexes"]), "TMPDIR": str(folders["tmp"])}


def files_under(folder: str) -> list[Path]:
    return [path for path in Path(folder).rglob("*") if path.is_file()]


def upload(server: WebServer, token: str, n: int) -> int:
    headers = {"Authorization": f"Token {token}"}
    if n < WITH_IMAGES:
        uid = f"1.2.826.0.1.77.{n}"
        files = [("files", (f"{view.lower()}.dcm", dicom.make_dicom(
            view=view, rows=192, cols=192, study_uid=uid, sop_uid=f"{uid}.{index}",
            patient_id=f"TWOHOSTS{n}"), "application/dicom"))
            for index, view in enumerate(("PA", "LATERAL"))]
    else:
        files = []
    answer = requests.post(f"{server.url}/api/studies/", headers=headers, timeout=120,
                           data={"report_text": f"{REPORT} Case {n}."}, files=files or None)
    assert answer.status_code == 201, f"study {n}: {answer.text[:300]}\n{server.log()[-4000:]}"
    return answer.json()["studies"][0]["id"]


def test_a_web_server_and_two_workers_sharing_nothing_on_disk(radiologist, tmp_path):
    if not (media.in_bucket() and connection.vendor == "postgresql"):
        pytest.skip("needs PostgreSQL, Redis and the object store (scripts/test.sh's second pass)")
    library_images, library_reports = folder_per_study(tmp_path / "library", n=10)
    assert image_import.run_import(library_images, library_reports).images_added == 20

    hosts = {name: host(tmp_path / "hosts", name) for name in ("web", "worker-a", "worker-b")}
    server = WebServer(workers=2, **hosts["web"])
    workers = [WorkerProcess(name=name, **hosts[name]) for name in ("worker-a", "worker-b")]
    server.start()
    for worker in workers:
        worker.start()
    try:
        token = AuthToken.objects.create(radiologist)[1]
        ids = [upload(server, token, n) for n in range(STUDIES)]
        wait_for(lambda: not Study.objects.filter(pk__in=ids)
                 .exclude(status__in=["ready", "failed"]).exists(),
                 timeout=900, message="every study to finish",
                 details=lambda: f"{job_table(ids)}\n{workers[0].log()[-2000:]}"
                                 f"\n{workers[1].log()[-2000:]}")
    finally:
        stop_all(*workers, server)

    failed = {study.pk: list(study.jobs.exclude(error="").values_list("stage", "error"))
              for study in Study.objects.filter(pk__in=ids, status="failed")}
    assert not failed, failed
    assert_each_stage_done_once(ids)
    assert not Job.objects.filter(study_id__in=ids, attempts__gt=1).exists(), job_table(ids)
    # Both workers drew from the one queue (a claim names the host and the process).
    claimed = set(Job.objects.filter(study_id__in=ids).values_list("claimed_by", flat=True))
    claimants = {f"{socket.gethostname()}:{worker.process.pid}" for worker in workers}
    assert claimed == claimants, claimed
    # Every image is in the bucket, and no host kept media of its own.
    images = Image.objects.filter(study_id__in=ids)
    assert images.count() == 2 * WITH_IMAGES
    assert all(media.exists(image.original.name) for image in images)
    for name, environment in hosts.items():
        assert not files_under(environment["RADREVIEW_MEDIA_ROOT"]), name
    # A worker that ran an image study's stages pulled the image memory into its own folder.
    for name, worker in zip(("worker-a", "worker-b"), workers, strict=True):
        claimant = f"{socket.gethostname()}:{worker.process.pid}"
        if Job.objects.filter(study_id__in=ids, stage="vrag", claimed_by=claimant).exists():
            pulled = Path(hosts[name]["RADREVIEW_INDEX_DIR"]) / ".index-store" / "image_memory"
            assert pulled.is_file(), name
