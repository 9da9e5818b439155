"""Faults a department's server meets, each with real processes: a worker or a web worker
killed mid-flight, the database unavailable for a while, the broker restarted, the media disk
full. Every test asserts what must hold: nothing lost, nothing half-stored, no stage done twice,
and a client that gets a clean error and can try again.

Marked ``pipeline``, so scripts/test.sh runs them on SQLite + the filesystem broker and again
on PostgreSQL + Redis.
"""
from __future__ import annotations

import errno
import http.client
import os
import signal
import subprocess
import threading
import time
from pathlib import Path, PurePosixPath

import pytest
import requests
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db.models import Count
from knox.models import AuthToken

from radreview.audit.models import AuditEvent
from radreview.jobs.models import Job
from radreview.media import intents
from radreview.media.models import UploadIntent
from radreview.studies.models import Image, Study
from radreview.studies.storage import AtomicFileSystemStorage
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support.outages import database_unavailable, on_postgres, restart_broker
from tests.support.process_groups import stop_all
from tests.support.sockets import process_holding
from tests.support.webserver import WebServer
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]

# A normal report: its stages are quick, so a batch of 50 fits the suite's time.
REPORT = "FINDINGS: Heart size is normal. No pneumothorax.\nIMPRESSION: No acute disease"


def post_reports(api_client, count: int, tag: str = "") -> list[int]:
    ids = []
    for number in range(count):
        response = api_client.post("/api/studies/", {"report_text": f"{REPORT} {tag}{number}."},
                                   format="multipart")
        assert response.status_code == 201, response.content
        ids.append(response.json()["studies"][0]["id"])
    return ids


def all_ready(ids: list[int]) -> bool:
    return Study.objects.filter(pk__in=ids, status=Study.Status.READY).count() == len(ids)


def job_table(ids: list[int]) -> str:
    rows = Job.objects.filter(study_id__in=ids).exclude(state=Job.State.DONE)
    return "\n".join(f"{job.study_id} {job.stage} {job.state} attempts={job.attempts} {job.error}"
                     for job in rows[:40])


def assert_each_stage_done_once(ids: list[int]) -> None:
    """Every job of every study is done, and the audit trail saw each stage finish once: a
    stage stored twice would have two stage_done events (and two sets of results)."""
    jobs = Job.objects.filter(study_id__in=ids)
    assert jobs.exists() and not jobs.exclude(state=Job.State.DONE).exists(), job_table(ids)
    done = (AuditEvent.objects.filter(study_id__in=ids, action="stage_done")
            .values("study_id", "detail__stage").annotate(n=Count("id")))
    twice = [row for row in done if row["n"] != 1]
    assert not twice, f"stages stored more than once: {twice}"
    assert len(done) == jobs.count()
    for study in Study.objects.filter(pk__in=ids).prefetch_related("reports__sentences"):
        for report in study.reports.all():  # each sentence stored once
            indexes = [s.index for s in report.sentences.all()]
            assert sorted(indexes) == list(range(len(indexes))), f"study {study.pk}: {indexes}"


def test_a_worker_killed_during_a_batch_of_50_loses_no_study_and_runs_no_stage_twice(
        transactional_db, api_client):
    ids = post_reports(api_client, 50)
    first = WorkerProcess("batch-first")
    first.start()
    try:
        # Kill it part-way: some studies done, most still waiting, one stage likely running.
        wait_for(lambda: Study.objects.filter(pk__in=ids, status=Study.Status.READY).count() >= 5,
                 message="a few studies to finish", details=first.log, interval=0.05)
    finally:
        first.kill()
    left = Study.objects.filter(pk__in=ids).exclude(status=Study.Status.READY).count()
    assert left > 0, "the whole batch finished before the kill: nothing was tested"
    interrupted = list(Job.objects.filter(study_id__in=ids, state=Job.State.RUNNING)
                       .values_list("pk", flat=True))

    second = WorkerProcess("batch-second")
    second.start()
    try:
        wait_for(lambda: all_ready(ids), timeout=300, message="every study after the restart",
                 details=lambda: f"{job_table(ids)}\n{second.log()[-3000:]}")
    finally:
        second.stop()
    assert_each_stage_done_once(ids)
    for job in Job.objects.filter(pk__in=interrupted):
        # The stage the kill interrupted was put back and run again by the new worker.
        assert job.attempts == 2
        assert AuditEvent.objects.filter(study_id=job.study_id, action="stage_requeued",
                                         detail__stage=job.stage).count() == 1
    assert not Job.objects.filter(study_id__in=ids, attempts__gt=2).exists()


@pytest.fixture
def api_token(radiologist) -> str:
    return AuthToken.objects.create(radiologist)[1]


def _multipart(files: list[tuple[str, bytes]], report: str) -> tuple[bytes, str]:
    prepared = requests.Request(
        "POST", "http://127.0.0.1/", data={"report_text": report},
        files=[("files", (name, data, "application/dicom")) for name, data in files]).prepare()
    return prepared.body, prepared.headers["Content-Type"]


def _stored_files(media_root: Path) -> list[str]:
    """The stored names of originals (in the folder, or in the test's folder of the bucket)."""
    return media.stored("originals")


@pytest.mark.parametrize("production_settings", [False, True],
                         ids=["scripts-run-sync-workers", "docker-gunicorn-conf"])
def test_a_web_worker_killed_mid_upload_stores_nothing_and_the_retry_works(
        transactional_db, api_token, media_root, production_settings):
    """The web worker serving an upload is killed the moment its first file lands in the media
    folder — after every check passed, while the study's rows are not yet committed. Under
    both servers: scripts/run.sh's sync workers on one shared socket, and the image's gthread
    workers, each on a listening socket of its own (the retry must reach a live one)."""
    pixels = dicom.stored_values(dicom.chest_phantom(seed=3, rows=1000, cols=1000), bits=12)
    files = [(f"view-{n}.dcm", dicom.make_dicom(pixels=pixels, rows=1000, cols=1000,
                                               study_uid="1.2.3.4242"))
             for n in range(40)]
    body, content_type = _multipart(files, REPORT)
    headers = {"Authorization": f"Token {api_token}", "Content-Type": content_type}

    server = WebServer(workers=2, production_settings=production_settings)
    server.start()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        connection.connect()
        client_port = connection.sock.getsockname()[1]
        killed: list[int] = []

        def kill_when_the_first_file_lands():
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and not _stored_files(media_root):
                time.sleep(0.001)
            pid = process_holding(server.worker_pids(), server.port, client_port)
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        killer = threading.Thread(target=kill_when_the_first_file_lands)
        killer.start()
        try:
            connection.request("POST", "/api/studies/", body=body, headers=headers)
            answer = connection.getresponse()
            status = answer.status
        except (ConnectionError, http.client.HTTPException):
            status = None  # the client sees the connection drop: an error it can act on
        finally:
            killer.join()
            connection.close()
        assert killed, f"the web worker was not found serving the upload:\n{server.log()[-3000:]}"
        assert status is None or status >= 500, f"the upload answered {status} after the kill"

        # Nothing of the upload is in the database but its intent, committed before the first
        # file was written and never completed. Files it wrote before the kill are whole
        # (written under a temporary name, then renamed), all in the intent's folder, and the
        # sweep a starting worker runs removes exactly them.
        assert not Study.objects.exists() and not Image.objects.exists()
        intent = UploadIntent.objects.get()
        assert intent.state == UploadIntent.State.PENDING and len(intent.files) == len(files)
        leftovers = _stored_files(media_root)
        sizes = {len(data) for _, data in files}
        assert all(len(media.read(name)) in sizes for name in leftovers if
                   not PurePosixPath(name).name.startswith(".partial-")), \
            "half a file under a stored name"
        assert all(name.startswith(f"{intent.folder}/") for name in leftovers)
        assert intents.sweep(older_than=0) == len(leftovers)
        assert not _stored_files(media_root)
        intent.refresh_from_db()
        assert (intent.state, intent.cleaned_by) == (UploadIntent.State.CLEANED, "sweep")

        # The client tries again (gunicorn has started a new worker): the upload is whole.
        retry = requests.post(f"{server.url}/api/studies/", data=body, headers=headers, timeout=120)
        assert retry.status_code == 201, retry.text[:500]
    finally:
        server.stop()
    study = Study.objects.get()
    assert study.images.count() == 40 and study.jobs.exists()
    assert intents.sweep(older_than=0) == 0  # the completed upload's files stay
    stored = {PurePosixPath(name).name for name in _stored_files(media_root)}
    assert stored == {Path(image.original.name).name for image in study.images.all()}


@pytest.fixture
def full_media_disk(media_root, monkeypatch):
    """The media folder on a 1 MB tmpfs (as root); elsewhere the storage layer's write raises
    ENOSPC after the first file, as a full disk would."""
    if media.in_bucket():
        pytest.skip("the media are in the object store, not on this host's disk")
    media_root.mkdir(parents=True, exist_ok=True)
    mounted = os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(media_root)],
        capture_output=True).returncode == 0
    if not mounted:
        real_save, writes = AtomicFileSystemStorage._save, []

        def save_until_full(storage, name, content):
            if writes:
                raise OSError(errno.ENOSPC, "No space left on device")
            writes.append(name)
            return real_save(storage, name, content)

        monkeypatch.setattr(AtomicFileSystemStorage, "_save", save_until_full)
    yield media_root
    if mounted:
        subprocess.run(["umount", str(media_root)], check=True)


def test_an_upload_to_a_full_media_disk_is_refused_whole_with_a_clear_error(
        transactional_db, api_client, full_media_disk):
    # Three images of about 600 kB: the first fits on the disk, the second does not.
    pixels = dicom.stored_values(dicom.chest_phantom(seed=4, rows=550, cols=550), bits=12)
    files = [SimpleUploadedFile(f"view-{n}.dcm", dicom.make_dicom(
        pixels=pixels, rows=550, cols=550, study_uid="1.2.3.4343")) for n in range(3)]
    response = api_client.post("/api/studies/", {"files": files, "report_text": REPORT},
                               format="multipart")
    assert response.status_code == 507, response.content
    assert "storage for images is full" in response.json()["detail"]
    assert not Study.objects.exists() and not Image.objects.exists()
    assert not Job.objects.exists()
    # Not the first image (stored before the disk filled), not half the second, no temporary.
    assert [p for p in full_media_disk.rglob("*") if p.is_file()] == []


# The worker's reconciler (radreview/jobs/reconcile.py) every second; a queued job with no
# message in the broker resent after 2 s; a running job whose heartbeat (every second) stopped
# for 10 s taken over. 10 s is longer than the 6 s outage, so a stage that is only waiting for
# the database is never taken from its live worker.
FAST_RECONCILE = {"RADREVIEW_RECONCILE_SECONDS": "1", "RADREVIEW_JOB_RESEND_AFTER_SECONDS": "2",
                  "RADREVIEW_JOB_HEARTBEAT_SECONDS": "1", "RADREVIEW_JOB_STALE_AFTER_SECONDS": "10"}


def _post_report(server: WebServer, token: str, text: str) -> requests.Response:
    return requests.post(f"{server.url}/api/studies/", data={"report_text": text},
                         headers={"Authorization": f"Token {token}"}, timeout=90)


def _ids_of(tags: list[str]) -> list[int]:
    return [Study.objects.get(reports__text__endswith=f" {tag}.").pk for tag in tags]


def test_while_the_database_is_unavailable_requests_fail_cleanly_and_jobs_resume_after(
        transactional_db, api_token):
    """PostgreSQL stopped for 6 s (the issue asks for 30; 6 keeps the suite short and cuts
    every connection all the same); on SQLite the write lock held by another writer for 6 s.
    Uploads made meanwhile either wait and succeed or are answered 503 with Retry-After and
    leave nothing; every accepted study is processed once the database is back, by the same
    worker (its reconciler puts back what the outage interrupted), each stage once."""
    server, worker = WebServer(workers=2), WorkerProcess("db-outage", **FAST_RECONCILE)
    server.start()
    worker.start()
    accepted, refused = [], []
    try:
        for number in range(2):
            assert _post_report(server, api_token, f"{REPORT} before{number}.").status_code == 201
            accepted.append(f"before{number}")
        with database_unavailable(seconds=6):
            started = time.monotonic()
            number = 0
            while time.monotonic() - started < 6:
                answer = _post_report(server, api_token, f"{REPORT} during{number}.")
                assert answer.status_code in (201, 503), \
                    f"upload during the outage got {answer.status_code}: {answer.text[:300]}"
                if answer.status_code == 503:
                    assert int(answer.headers["Retry-After"]) > 0
                    assert "cannot reach its database" in answer.json()["detail"]
                (accepted if answer.status_code == 201 else refused).append(f"during{number}")
                number += 1
        for number in range(2):
            assert _post_report(server, api_token, f"{REPORT} after{number}.").status_code == 201
            accepted.append(f"after{number}")
        ids = _ids_of(accepted)
        wait_for(lambda: all_ready(ids), timeout=180, message="every accepted study",
                 details=lambda: f"{job_table(ids)}\n{worker.log()[-3000:]}")
        assert worker.process.poll() is None, "the worker stopped: " + worker.log()[-3000:]
    finally:
        stop_all(worker, server)
    assert_each_stage_done_once(ids)
    # A refused upload left nothing behind; nothing was stored that the client was not told of.
    for tag in refused:
        assert not Study.objects.filter(reports__text__endswith=f" {tag}.").exists()
    assert Study.objects.count() == len(accepted)
    assert "database is locked" not in server.log()
    if on_postgres():
        assert refused, "no upload was refused: the database was never away"


def test_queued_work_survives_a_broker_restart(transactional_db, api_client):
    """The broker restarts while a batch waits in it and loses what it held (Redis without
    persistence; the filesystem broker's queue emptied). Uploads after the restart reach the
    running worker, and its reconciler sends the lost jobs of the batch queued before again:
    every study completes without restarting the worker, each stage once."""
    worker = WorkerProcess("broker", **FAST_RECONCILE)
    worker.start()
    try:
        before = post_reports(api_client, 8, tag="before")
        restart_broker()
        waiting = Study.objects.filter(pk__in=before).exclude(status=Study.Status.READY).count()
        # The worker holds at most one message or two; the rest of the batch was lost.
        assert waiting >= 3, "the batch was processed before the restart: nothing was tested"
        after = post_reports(api_client, 2, tag="after")
        wait_for(lambda: all_ready(before + after), timeout=120,
                 message="the batch queued before the restart and the uploads after it",
                 details=lambda: f"{job_table(before + after)}\n{worker.log()[-3000:]}")
        assert worker.process.poll() is None, "the worker stopped: " + worker.log()[-3000:]
        assert "queued jobs again whose messages were lost" in worker.log()
    finally:
        worker.stop()
    assert_each_stage_done_once(before + after)
