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
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from radreview.audit.services import record_event
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
    seen, unreferenced = 0, []
    for batch in _batches(layout.iter_originals()):
        seen += len(batch)
        named = set(Image.objects.filter(original__in=batch).values_list("original", flat=True))
        unreferenced += [name for name in batch if name not in named and name not in pending
                         and not name.startswith(pending_folders)]
    root = Path(settings.MEDIA_ROOT)
    missing = [(study, image) for image, study, name in
               Image.objects.values_list("pk", "study_id", "original").order_by("pk").iterator()
               if not (root / name).is_file()]
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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def quarantine(names: list[str], *, actor=None) -> Path:
    """Move unreferenced originals into ``MEDIA_ROOT/quarantine/<time>/`` under their own
    relative names, with a manifest (name, size, SHA-256); return the quarantine folder.
    A name that an image row or a pending upload names meanwhile is left where it is."""
    root = Path(settings.MEDIA_ROOT)
    target = root / layout.QUARANTINE / timezone.now().strftime("%Y%m%d-%H%M%S-%f")
    pending, pending_folders = _unfinished_uploads()
    named = set()
    for batch in _batches(names):
        named.update(Image.objects.filter(original__in=batch).values_list("original", flat=True))
    moved = []
    for name in names:
        source = root / name
        if (name in named or name in pending or name.startswith(pending_folders)
                or not source.is_file()):
            continue
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        entry = {"name": name, "size": source.stat().st_size, "sha256": _sha256(source)}
        os.replace(source, destination)
        moved.append(entry)
    if moved:
        (target / "manifest.json").write_text(json.dumps(moved, indent=1))
    record_event("media_quarantined", actor=actor,
                 detail={"files": len(moved), "folder": str(target.relative_to(root))})
    logger.warning("moved %s unreferenced original files to the quarantine folder", len(moved))
    return target
