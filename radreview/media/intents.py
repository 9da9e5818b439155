"""Upload intents: the only proof on which RadReview deletes an original.

An upload commits an ``UploadIntent`` naming the files it is about to write, in a folder of its
own, before it writes the first of them (``begin``); the transaction that creates the study's
rows marks it done (``complete``). If the upload fails, it removes its files itself and says so
on the intent (``abandon``). If the process dies in between, the intent stays pending: a
starting worker's ``sweep`` removes exactly the files it lists (and the half-written
``.partial-*`` files in its folder), once it is older than ``ORPHAN_UPLOAD_SECONDS``. A file
that no intent lists is never deleted here: ``inventory`` reports it.

An upload made inside a transaction that is already open (a PACS import's store runs in its
job's transaction) commits its intent with that transaction; files a crash leaves there are
reported, not swept.
"""
from __future__ import annotations

import logging
import uuid
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, transaction
from django.utils import timezone

from radreview.studies import storage
from radreview.studies.models import Image

from . import layout
from .models import UploadIntent

logger = logging.getLogger(__name__)


def begin(*, user, source: str, files_by_folder: dict[str, list[str]]) -> UploadIntent:
    """Commit the intent to write ``files_by_folder`` ({sub-folder: [file names]}) into a new
    folder of the upload's own; the intent's ``files`` are their names under MEDIA_ROOT."""
    token, now = uuid.uuid4(), timezone.now()
    folder = layout.upload_folder(token, now)
    files = [f"{folder}/{sub}/{name}" for sub, names in files_by_folder.items() for name in names]
    with transaction.atomic():
        return UploadIntent.objects.create(
            token=token, created_at=now, created_by=user if getattr(user, "pk", None) else None,
            source=source[:16], folder=folder, files=files)


def complete(intent: UploadIntent) -> None:
    """Mark the intent done; call inside the transaction that stores what the files belong to."""
    UploadIntent.objects.filter(pk=intent.pk, state=UploadIntent.State.PENDING).update(
        state=UploadIntent.State.DONE, finished_at=timezone.now())


def _remove(intent: UploadIntent, owned: frozenset[str] = frozenset()) -> int:
    """Remove the intent's listed files except ``owned``, the ``.partial-*`` files in its
    folder, and the folder once empty; return how many files were removed."""
    removed = 0
    for name in intent.files:
        if name not in owned and storage.exists(name):
            storage.delete(name)
            removed += 1
    if storage.in_bucket():
        return removed  # a bucket has neither half-written objects nor folders to remove
    folder = Path(settings.MEDIA_ROOT) / intent.folder
    if folder.is_dir():
        for partial in folder.rglob(f"{layout.PARTIAL_PREFIX}*"):
            partial.unlink(missing_ok=True)
            removed += 1
        for sub in sorted((p for p in folder.rglob("*") if p.is_dir()), reverse=True):
            _remove_if_empty(sub)
        _remove_if_empty(folder)
    return removed


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty: whatever else is there is reported by the inventory, never deleted


def _mark_cleaned(intent: UploadIntent, by: str, removed: int) -> bool:
    return bool(UploadIntent.objects.filter(pk=intent.pk, state=UploadIntent.State.PENDING)
                .update(state=UploadIntent.State.CLEANED, finished_at=timezone.now(),
                        cleaned_by=by, removed_files=removed))


def abandon(intent: UploadIntent) -> None:
    """The upload failed and its transaction rolled back: remove its files now. When the
    database cannot record that (it is what failed), the intent stays pending and the sweep
    finds nothing left to remove; when the object store cannot be reached (it is what failed),
    the intent stays pending and the sweep removes them once the store answers."""
    try:
        removed = _remove(intent)
    except Exception as exc:
        if not storage.unavailable(exc):
            raise
        logger.warning("upload intent %s: files left for the sweep (object store "
                       "unreachable)", intent.pk)
        return
    try:
        _mark_cleaned(intent, "upload", removed)
    except DatabaseError:
        logger.warning("upload intent %s: files removed, not recorded (database error)",
                       intent.pk)


def _owned(intent: UploadIntent) -> frozenset[str]:
    owned = frozenset(Image.objects.filter(original__in=intent.files)
                      .values_list("original", flat=True))
    if owned:
        # Cannot happen while the intent is pending (the done mark commits with the rows); if a
        # restored database says otherwise, the images win.
        logger.error("upload intent %s is pending but %s of its files belong to images; those "
                     "are kept", intent.pk, len(owned))
    return owned


def sweep(older_than: float | None = None) -> int:
    """Remove the files of uploads that never completed and are older than ``older_than``
    seconds (``ORPHAN_UPLOAD_SECONDS``); return how many files were removed."""
    older_than = settings.ORPHAN_UPLOAD_SECONDS if older_than is None else older_than
    cutoff = timezone.now() - timedelta(seconds=older_than)
    removed = swept = 0
    for intent in UploadIntent.objects.filter(state=UploadIntent.State.PENDING,
                                              created_at__lte=cutoff).order_by("pk"):
        count = _remove(intent, _owned(intent))
        if _mark_cleaned(intent, "sweep", count):
            removed += count
            swept += 1
    if swept:
        logger.warning("removed %s files of %s uploads that were interrupted before their "
                       "studies were stored", removed, swept)
    return removed
