"""The media folder checked against the database: what no row names is reported and kept, and
an admin can move it aside; what rows name but is gone is counted by study."""
from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from radreview.audit.models import AuditEvent
from radreview.media import identity, intents, inventory
from radreview.media.models import MediaCheck
from radreview.studies.models import Image
from radreview.studies.storage import write_media_atomically
from tests import factories
from tests.support import media
from tests.support.worker import WorkerProcess, wait_for

pytestmark = pytest.mark.django_db

STRAYS = ("studies/7/originals/000-0123456789abcdef.dcm",
          "originals/2025/12/0f0f0f0f/0/000-fedcba9876543210.dcm")


@pytest.fixture
def strays(media_root) -> dict[str, bytes]:
    """Originals no row names (a database restored from before they arrived)."""
    files = {}
    for number, name in enumerate(STRAYS):
        files[name] = f"DICM stray {number}".encode()
        write_media_atomically(name, files[name])
    return files


@pytest.fixture
def study_with_a_missing_file(radiologist, media_root):
    study = factories.make_study(radiologist)
    present = write_media_atomically(f"studies/{study.pk}/originals/000-present.dcm", b"DICM")
    Image.objects.create(study=study, kind="dicom", original=present, original_name="a",
                         size_bytes=4, sha256="a" * 64)
    Image.objects.create(study=study, kind="dicom", position=1, original_name="b",
                         original=f"studies/{study.pk}/originals/001-gone.dcm", size_bytes=4,
                         sha256="b" * 64)
    return study


def test_files_no_row_names_are_reported_by_count_and_kept(strays, media_root, caplog):
    with caplog.at_level(logging.WARNING, logger="radreview.media.inventory"):
        found = inventory.check()
    assert sorted(found.unreferenced) == sorted(STRAYS)
    assert all(media.read(name) == data for name, data in strays.items())
    check = MediaCheck.objects.get()
    assert (check.files_seen, check.unreferenced_files, check.missing_files) == (2, 2, 0)
    [line] = [r.getMessage() for r in caplog.records]
    assert "2 original files" in line and not any(name in line for name in STRAYS)


def test_files_of_an_upload_still_writing_are_not_unreferenced(radiologist, media_root):
    intent = intents.begin(user=radiologist, source="upload", files_by_folder={"0": ["a.dcm"]})
    write_media_atomically(intent.files[0], b"DICM")
    write_media_atomically(f"{intent.folder}/0/.partial-abc", b"DI")
    assert inventory.check().unreferenced == []


def test_studies_whose_files_are_missing_are_counted(study_with_a_missing_file):
    found = inventory.check()
    image = study_with_a_missing_file.images.get(position=1)
    assert found.missing == [(study_with_a_missing_file.pk, image.pk)]
    check = MediaCheck.objects.get()
    assert (check.missing_files, check.studies_missing_files) == (1, 1)


def test_the_setup_checklist_shows_the_last_check(admin_client_, strays,
                                                  study_with_a_missing_file):
    page = admin_client_.get("/site/setup/").content.decode()
    assert "Media files" in page and "not checked yet" in page
    inventory.check()
    page = admin_client_.get("/site/setup/").content.decode()
    assert "1 studies with image files missing" in page
    assert "2 files named by no study (kept)" in page
    assert "manage.py media_files" in page


def test_the_command_lists_them_and_moves_nothing_without_a_yes(strays, media_root,
                                                                monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(CommandError, match="Nothing was moved"):
        call_command("media_files", "--quarantine")
    listed = capsys.readouterr().out
    assert all(name in listed for name in STRAYS)
    assert all(media.exists(name) for name in STRAYS)


def test_quarantine_moves_them_whole_with_a_manifest_and_a_record(strays, media_root,
                                                                  capsys):
    call_command("media_files", "--quarantine", "--yes")
    assert not any(media.exists(name) for name in STRAYS)
    [listing] = [name for name in media.stored("quarantine") if name.endswith("/manifest.json")]
    folder = listing.rsplit("/", 1)[0]
    manifest = {entry["name"]: entry for entry in json.loads(media.read(listing))}
    assert set(manifest) == set(STRAYS)
    for name, data in strays.items():
        assert media.read(f"{folder}/{name}") == data
        assert manifest[name]["sha256"] == hashlib.sha256(data).hexdigest()
    assert AuditEvent.objects.get(action="media_quarantined").detail["files"] == 2
    # Quarantined files are out of the originals' folders: the next check finds nothing.
    assert inventory.check().unreferenced == []


def test_quarantine_leaves_a_file_that_a_row_names_meanwhile(strays, media_root, radiologist):
    study = factories.make_study(radiologist)
    Image.objects.create(study=study, kind="dicom", original=STRAYS[0], original_name="a",
                         size_bytes=4, sha256="a" * 64)
    inventory.quarantine(list(STRAYS))
    assert media.exists(STRAYS[0])
    assert not media.exists(STRAYS[1])


def test_a_worker_start_checks_the_media_folder(transactional_db, media_root):
    """The worker's start (workers/tasks.py) records a check the checklist shows, and logs a
    count, never a file name. The files arrived after the deployment was set up (a database
    restored from before them), so the worker starts."""
    identity.ensure()
    for name in STRAYS:
        write_media_atomically(name, b"DICM")
    worker = WorkerProcess()
    worker.start()
    try:
        wait_for(MediaCheck.objects.exists, timeout=60, message="the worker's media check")
    finally:
        worker.stop()
    assert MediaCheck.objects.get().unreferenced_files == 2
    assert all(media.exists(name) for name in STRAYS)
    assert "2 original files that no study or upload names" in worker.log()
    assert all(Path(name).name not in worker.log() for name in STRAYS)
