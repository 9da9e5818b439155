"""Upload intents: an upload's files are removed only on the proof its intent gives, and only
the files it lists (radreview/media/intents.py)."""
from __future__ import annotations

import os
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from radreview.media import intents
from radreview.media.models import UploadIntent
from radreview.studies.models import Image, Study
from radreview.studies.storage import write_media_atomically
from tests import factories
from tests.support import dicom_factory as dicom
from tests.support import media

pytestmark = pytest.mark.django_db


def _two_views() -> list[SimpleUploadedFile]:
    return [SimpleUploadedFile(f"view-{n}.dcm", dicom.make_dicom(
        study_uid="1.2.3.77", seed=n, rows=64, cols=64)) for n in range(2)]


def _files(root: Path) -> set[str]:
    """Every stored name (under MEDIA_ROOT, or in the test's folder of the bucket)."""
    return set(media.stored())


def _abandoned(user, media_root: Path, names: list[str], *, age_seconds: float = 7200,
               written: list[str] | None = None) -> UploadIntent:
    """A pending intent listing ``names`` in its folder, ``age_seconds`` old, whose ``written``
    files (all of them by default) are stored: what a killed upload leaves."""
    intent = intents.begin(user=user, source="upload", files_by_folder={"0": names})
    UploadIntent.objects.filter(pk=intent.pk).update(
        created_at=timezone.now() - timedelta(seconds=age_seconds))
    for name in intent.files if written is None else written:
        write_media_atomically(name, b"DICM")
    intent.refresh_from_db()
    return intent


def test_an_upload_names_its_files_in_an_intent_marked_done_with_its_study(api_client,
                                                                          media_root):
    response = api_client.post("/api/studies/", {"files": _two_views()}, format="multipart")
    assert response.status_code == 201, response.content
    intent = UploadIntent.objects.get()
    names = sorted(Image.objects.values_list("original", flat=True))
    assert sorted(intent.files) == names
    assert intent.state == UploadIntent.State.DONE and intent.finished_at is not None
    assert intent.created_by is not None and intent.source == "upload"
    assert all(name.startswith(f"{intent.folder}/") for name in names)
    assert _files(media_root) == set(names)


def test_a_report_alone_writes_no_file_and_needs_no_intent(api_client):
    response = api_client.post("/api/studies/", {"report_text": "FINDINGS: Clear lungs."},
                               format="multipart")
    assert response.status_code == 201
    assert not UploadIntent.objects.exists()


def test_an_upload_that_fails_after_its_first_file_removes_it_and_says_so(
        api_client, media_root, monkeypatch):
    backend = type(storages["default"])  # the folder's, or the bucket's
    real_save, saved = backend._save, []

    def fail_on_the_second(storage, name, content):
        if saved:
            raise RuntimeError("the disk went away")
        saved.append(name)
        return real_save(storage, name, content)

    monkeypatch.setattr(backend, "_save", fail_on_the_second)
    with pytest.raises(RuntimeError):
        api_client.post("/api/studies/", {"files": _two_views()}, format="multipart")
    assert saved and not Study.objects.exists()
    intent = UploadIntent.objects.get()
    assert (intent.state, intent.cleaned_by, intent.removed_files) == (
        UploadIntent.State.CLEANED, "upload", 1)
    assert _files(media_root) == set()


def test_the_sweep_removes_exactly_what_an_abandoned_intent_lists(radiologist, media_root):
    intent = _abandoned(radiologist, media_root, ["000-aaaa.dcm", "001-bbbb.dcm"])
    stranger = write_media_atomically(f"{intent.folder}/0/put-here-by-hand.dcm", b"DICM")
    removed = 2  # the two listed files
    if not media.in_bucket():  # and a half-written one: only a folder has them
        (media_root / intent.folder / "0" / ".partial-x1y2").write_bytes(b"half")
        removed = 3
    assert intents.sweep(older_than=3600) == removed
    assert _files(media_root) == {stranger}
    intent.refresh_from_db()
    assert (intent.state, intent.cleaned_by, intent.removed_files) == (
        UploadIntent.State.CLEANED, "sweep", removed)
    assert intents.sweep(older_than=0) == 0  # done once: the intent is no longer pending


def test_the_sweep_leaves_young_and_completed_uploads_and_files_images_own(radiologist,
                                                                          media_root):
    young = _abandoned(radiologist, media_root, ["000-cccc.dcm"], age_seconds=60)
    done = _abandoned(radiologist, media_root, ["000-dddd.dcm"])
    UploadIntent.objects.filter(pk=done.pk).update(state=UploadIntent.State.DONE)
    owned = _abandoned(radiologist, media_root, ["000-eeee.dcm", "001-ffff.dcm"])
    study = factories.make_study(radiologist)
    Image.objects.create(study=study, kind="dicom", original=owned.files[0],
                         original_name="x", size_bytes=4, sha256="e" * 64)
    before = _files(media_root)
    assert intents.sweep(older_than=3600) == 1
    assert _files(media_root) == before - {owned.files[1]}
    young.refresh_from_db()
    assert young.state == UploadIntent.State.PENDING


def test_the_sweep_never_deletes_a_file_that_no_intent_lists(radiologist, media_root):
    """The files of a database restored from before an upload, or another deployment's: no
    row names them, so nothing proves they were abandoned."""
    for name in ("studies/1/originals/000-0123.dcm", "originals/2026/01/abc/0/000-4567.dcm",
                 "studies/2/originals/.partial-zz"):
        write_media_atomically(name, b"DICM")
        if not media.in_bucket():  # a month old, for a sweep that would go by age
            old = time.time() - 30 * 24 * 3600
            os.utime(media_root / name, (old, old))
    before = _files(media_root)
    _abandoned(radiologist, media_root, ["000-9999.dcm"], written=[])  # its files never landed
    assert intents.sweep(older_than=0) == 0
    assert _files(media_root) == before
