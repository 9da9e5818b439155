"""Patients' images are never deleted without proof they were abandoned (issue 35), tested with
real processes: a worker met with another deployment's media refuses to start and touches
nothing; a database restored from before an upload leaves that upload's files in place and
reported; a bench run leaves the operator's data folder byte-identical.

Marked ``pipeline``: scripts/test.sh runs them on SQLite and again on PostgreSQL + Redis.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from radreview.media import identity
from radreview.media.models import Deployment, MediaCheck, UploadIntent
from radreview.studies import storage
from radreview.studies.models import Image, Study
from radreview.studies.services.upload import UploadRequest, create_studies
from radreview.studies.storage import write_media_atomically
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.support import worker as workers
from tests.support.webserver import WebServer
from tests.support.worker import ROOT, WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]

# Another deployment's originals, in both layouts, older than any sweep's cutoff.
THEIRS = ("studies/1/originals/000-0123456789abcdef.dcm",
          "studies/1/originals/001-fedcba9876543210.dcm",
          "originals/2026/10/5d6f0e6c1b2a4f4e9d8c7b6a5f4e3d2c/0/000-00112233445566aa.dcm")
A_DAY_AGO = time.time() - 24 * 3600


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with its SHA-256 (and every folder, as "dir"); with media in
    the bucket, every object of the test's folder there."""
    if media.in_bucket():
        return {name: hashlib.sha256(media.read(name)).hexdigest() for name in media.stored()}
    return {path.relative_to(folder).as_posix():
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
            for path in sorted(folder.rglob("*"))}


def fill_with_their_originals(media_root: Path, marker: str | None) -> None:
    for number, name in enumerate(THEIRS):
        write_media_atomically(name, dicom.make_dicom(seed=number, rows=64, cols=64))
        age(media_root, name)
    if marker:
        write_media_atomically(identity.MARKER_NAME, json.dumps(
            {"deployment": marker, "created_at": "2026-10-01T08:00:00+00:00"}).encode())


def age(media_root: Path, name: str) -> None:
    """A day old on disk (an object's time in a bucket cannot be set; nothing goes by it)."""
    if not media.in_bucket():
        os.utime(media_root / name, (A_DAY_AGO, A_DAY_AGO))


def started_worker_that_checked_the_media() -> WorkerProcess:
    """A worker whose sweep may remove any abandoned upload at once (cutoff 0), run until it has
    checked the media folder at its start, then stopped."""
    worker = WorkerProcess(RADREVIEW_ORPHAN_UPLOAD_SECONDS="0")
    worker.start()
    try:
        wait_for(MediaCheck.objects.exists, timeout=60, message="the worker's media check")
    finally:
        worker.stop()
    return worker


def refused_worker(**environment: str) -> str:
    """Start a worker that must refuse: its log."""
    worker = WorkerProcess(**environment)
    with pytest.raises(RuntimeError, match="worker exited early") as exited:
        worker.start()
    worker.stop()
    assert worker.process.returncode != 0
    return str(exited.value)


@pytest.mark.parametrize("database", ["its-own-identity", "new", "new-without-marker"])
def test_a_worker_meeting_another_deployments_media_refuses_and_deletes_nothing(
        transactional_db, media_root, database):
    """Issue 35's reproduction: a worker on a database that is not the media's (another
    deployment's, a new one, one restored without them) once deleted every original older
    than the sweep's cutoff. Now it stops before it touches anything, even with a cutoff of 0."""
    theirs = str(uuid.uuid4())
    fill_with_their_originals(media_root, None if database == "new-without-marker" else theirs)
    ours = None
    if database == "its-own-identity":
        ours = Deployment.objects.create(pk=Deployment.SINGLETON).identity
    before = snapshot(media_root)

    log = refused_worker(RADREVIEW_ORPHAN_UPLOAD_SECONDS="0")

    assert "Refusing to start" in log and storage.where() in log
    assert ("SQLite database" in log) or ("PostgreSQL database" in log)
    if database == "its-own-identity":
        assert str(ours) in log and theirs in log  # both deployments named
    elif database == "new":
        assert theirs in log and "has no deployment identity" in log
    else:
        assert "does not name" in log
    assert snapshot(media_root) == before
    assert not MediaCheck.objects.exists()  # it did not even look


def test_with_the_media_folders_own_database_the_worker_starts_and_keeps_every_file(
        transactional_db, media_root):
    theirs = str(uuid.uuid4())
    fill_with_their_originals(media_root, theirs)
    Deployment.objects.create(pk=Deployment.SINGLETON, identity=uuid.UUID(theirs))
    before = snapshot(media_root)
    started_worker_that_checked_the_media()
    # No intent names these files: nothing proves they were abandoned, so they are reported.
    assert snapshot(media_root) == before
    assert MediaCheck.objects.get().unreferenced_files == len(THEIRS)


def test_a_web_server_meeting_another_deployments_media_does_not_start(
        transactional_db, media_root):
    fill_with_their_originals(media_root, str(uuid.uuid4()))
    Deployment.objects.create(pk=Deployment.SINGLETON)
    before = snapshot(media_root)
    server = WebServer(workers=1)
    with pytest.raises(RuntimeError) as refused:
        server.start(timeout=60)
    server.stop()
    assert "Refusing to start" in str(refused.value)
    assert snapshot(media_root) == before


class RestoredFromBefore(Exception):
    """Rolls an upload back after its files are written: the database as a backup taken
    before the upload would have it."""


def test_a_database_restored_from_before_an_upload_keeps_its_files_and_reports_them(
        transactional_db, media_root, radiologist):
    identity.ensure()
    views = [SimpleUploadedFile(f"view-{n}.dcm", dicom.make_dicom(
        study_uid="1.2.3.3535", seed=n, rows=64, cols=64)) for n in range(2)]
    with pytest.raises(RestoredFromBefore), transaction.atomic():
        create_studies(user=radiologist, request=UploadRequest(files=views))
        written = list(Image.objects.values_list("original", flat=True))
        raise RestoredFromBefore
    assert not Study.objects.exists() and not UploadIntent.objects.exists()
    assert len(written) == 2 and all(media.exists(name) for name in written)
    for name in written:
        age(media_root, name)
    before = snapshot(media_root)

    worker = started_worker_that_checked_the_media()
    assert snapshot(media_root) == before
    assert MediaCheck.objects.get().unreferenced_files == 2
    assert "2 original files that no study or upload names were kept" in worker.log()


def test_a_bench_run_leaves_the_operators_data_untouched(transactional_db, tmp_path):
    """bench/drain.py with DATABASE_URL set (as bench/stack.sh runs it) beside a populated data
    folder — named by RADREVIEW_DATA_DIR and RADREVIEW_MEDIA_ROOT, and the repository's own
    ./data — uses a folder of its own: both stay byte-identical."""
    theirs = tmp_path / "operators-data"
    their_media = theirs / "media"
    for number, name in enumerate(THEIRS):
        path = their_media / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(dicom.make_dicom(seed=number, rows=64, cols=64))
        os.utime(path, (A_DAY_AGO, A_DAY_AGO))
    (theirs / "radreview.sqlite3").write_bytes(b"the operator's database")
    repository_data = ROOT / "data"
    sentinel = repository_data / "media" / "studies" / f"sentinel-{uuid.uuid4().hex}"
    sentinel_file = sentinel / "originals" / "000-sentinel.dcm"
    sentinel_file.parent.mkdir(parents=True)
    sentinel_file.write_bytes(b"DICM sentinel")
    os.utime(sentinel_file, (A_DAY_AGO, A_DAY_AGO))
    before = snapshot(theirs)
    repository_marker = repository_data / "media" / identity.MARKER_NAME
    marker_before = repository_marker.read_bytes() if repository_marker.exists() else None
    try:
        environment = dict(os.environ, DATABASE_URL=workers.test_database_url(),
                           RADREVIEW_DATA_DIR=str(theirs), RADREVIEW_MEDIA_ROOT=str(their_media),
                           RADREVIEW_MEDIA_STORE="filesystem",  # the operator's folder
                           RADREVIEW_ORPHAN_UPLOAD_SECONDS="0")
        done = subprocess.run([sys.executable, "bench/drain.py", "--studies", "2"], cwd=ROOT,
                              env=environment, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "2 studies drained" in done.stdout
        assert snapshot(theirs) == before
        assert sentinel_file.read_bytes() == b"DICM sentinel"
        assert (repository_marker.read_bytes() if repository_marker.exists()
                else None) == marker_before
    finally:
        shutil.rmtree(sentinel)
