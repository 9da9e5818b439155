"""The media folder checked against the database: originals no row names, rows whose file is
gone. Nothing here deletes a file: unreferenced originals are reported (the log, the setup
checklist) and an admin may move them to a quarantine folder (``manage.py media_files``).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from django.core.files.storage import default_storage
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.studies import storage
from radreview.studies.models import Image

from . import layout
from .models import MediaCheck, UploadIntent

logger = logging.getLogger(__name__)

BATCH = 500


@dataclass(frozen=True)
class Inventory:
    files_seen: int
    unreferenced: list[str]  # names under MEDIA_ROOT
    missing: list[tuple[int, int]]  # (study id, image id) whose original is not there

    @property
    def studies_missing_files(self) -> int:
        return len({study for study, _ in self.missing})


def _batches(items: Iterable, size: int = BATCH) -> Iterator[list]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _unfinished_uploads() -> tuple[set[str], tuple[str, ...]]:
    """The files that pending uploads list, and their folders (their ``.partial-*`` files are
    theirs too): the sweep's to judge, not unreferenced."""
    files, folders = set(), []
    for listed, folder in UploadIntent.objects.filter(
            state=UploadIntent.State.PENDING).values_list("files", "folder"):
        files.update(listed)
        folders.append(f"{folder}/")
    return files, tuple(folders)


def take() -> Inventory:
    pending, pending_folders = _unfinished_uploads()
    seen, unreferenced, listed = 0, [], set()
    for batch in _batches(layout.iter_originals()):
        seen += len(batch)
        listed.update(batch)
        named = set(Image.objects.filter(original__in=batch).values_list("original", flat=True))
        unreferenced += [name for name in batch if name not in named and name not in pending
                         and not name.startswith(pending_folders)]
    # A row's file is there when the listing saw it; one named elsewhere is looked up itself.
    missing = [(study, image) for image, study, name in
               Image.objects.values_list("pk", "study_id", "original").order_by("pk").iterator()
               if name not in listed and not storage.exists(name)]
    return Inventory(seen, unreferenced, missing)


def check() -> Inventory:
    """Take the inventory, keep its counts for the setup checklist, and log what needs a person
    (counts only: file names carry study ids, never patient data, but counts are enough)."""
    found = take()
    MediaCheck.objects.create(files_seen=found.files_seen,
                              unreferenced_files=len(found.unreferenced),
                              missing_files=len(found.missing),
                              studies_missing_files=found.studies_missing_files)
    if found.unreferenced:
        logger.warning("media check: %s original files that no study or upload names were "
                       "kept; list them with `manage.py media_files`", len(found.unreferenced))
    if found.missing:
        logger.error("media check: %s studies have image files missing from the media folder",
                     found.studies_missing_files)
    return found


def latest_check() -> MediaCheck | None:
    return MediaCheck.objects.first()


def _sha256(handle) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    for chunk in iter(lambda: handle.read(1 << 20), b""):
        digest.update(chunk)
        size += len(chunk)
    return size, digest.hexdigest()


def _move(name: str, destination: str) -> dict:
    """Move one stored file, and say what it was (name, size, SHA-256). On the filesystem a
    rename; in the bucket a copy, read back and compared, and only then the original's
    deletion: an object store has no move, and a failed copy must leave the file in place."""
    with storage.open_media(name) as handle:
        size, digest = _sha256(handle)
    if storage.in_bucket():
        with storage.open_media(name) as handle:
            default_storage._save(destination, handle)  # exactly this name, whole or not at all
        with storage.open_media(destination) as handle:
            if _sha256(handle) != (size, digest):
                raise OSError(f"the quarantine copy of {name} differs; the file was kept")
        storage.delete(name)
    else:
        target = storage.media_path(destination)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(storage.media_path(name), target)
    return {"name": name, "size": size, "sha256": digest}


def quarantine(names: list[str], *, actor=None) -> str:
    """Move unreferenced originals into ``quarantine/<time>/`` of the media under their own
    stored names, with a manifest (name, size, SHA-256); return the quarantine folder's name.
    A name that an image row or a pending upload names meanwhile is left where it is."""
    target = f"{layout.QUARANTINE}/{timezone.now():%Y%m%d-%H%M%S-%f}"
    pending, pending_folders = _unfinished_uploads()
    named = set()
    for batch in _batches(names):
        named.update(Image.objects.filter(original__in=batch).values_list("original", flat=True))
    moved = []
    for name in names:
        if (name in named or name in pending or name.startswith(pending_folders)
                or not storage.exists(name)):
            continue
        moved.append(_move(name, f"{target}/{name}"))
    if moved:
        storage.write_media_atomically(f"{target}/manifest.json",
                                       json.dumps(moved, indent=1).encode())
    record_event("media_quarantined", actor=actor, detail={"files": len(moved), "folder": target})
    logger.warning("moved %s unreferenced original files to the quarantine folder", len(moved))
    return target
