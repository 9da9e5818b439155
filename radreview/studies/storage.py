"""Files under MEDIA_ROOT, written so that a crash never leaves half a file behind."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.core.files.storage import FileSystemStorage

from radreview.errors import ServiceError

MISSING_ORIGINAL = ("The image file of this study is missing from the server's storage. Nothing "
                    "can be shown or computed from it: tell your administrator (the setup "
                    "checklist lists the studies whose files are missing).")


class OriginalMissing(ServiceError):
    """A study's image file is not where its row says: answered 410 with ``MISSING_ORIGINAL``
    by pages and the API, and the reason a stage that needs it fails."""

    def __init__(self, message: str = MISSING_ORIGINAL):
        super().__init__(message)
        self.message = message


def media_path(relative: str) -> Path:
    path = (Path(settings.MEDIA_ROOT) / relative).resolve()
    if Path(settings.MEDIA_ROOT).resolve() not in path.parents:
        raise ValueError("media path escapes MEDIA_ROOT")
    return path


def original_path(image) -> Path:
    """The path of an image's original file; ``OriginalMissing`` when it is not there."""
    path = media_path(image.original.name)
    if not path.is_file():
        raise OriginalMissing
    return path


def open_original(image) -> BinaryIO:
    """An image's original file, open for reading; ``OriginalMissing`` when it is not there."""
    try:
        return media_path(image.original.name).open("rb")
    except (FileNotFoundError, IsADirectoryError):
        raise OriginalMissing from None


def read_original(image) -> bytes:
    with open_original(image) as handle:
        return handle.read()


def write_media_atomically(relative: str, data: bytes) -> str:
    """Write ``data`` to MEDIA_ROOT/relative via a temporary file and a rename; return
    ``relative``."""
    target = media_path(relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o640)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return relative


class AtomicFileSystemStorage(FileSystemStorage):
    """Django's file storage, writing each file under a temporary name first.

    Django's own storage writes straight to the final name, so a full disk or a killed process
    leaves half a file there. Here the bytes go to ``.partial-*`` in the same folder, are
    synced, and only then take their name (a hard link, which never replaces a file that
    exists: a taken name gets Django's usual suffix); the temporary is removed whatever happens.
    """

    def _save(self, name, content):
        target = Path(self.path(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
        try:
            with os.fdopen(fd, "wb") as handle:
                if hasattr(content, "seek"):
                    content.seek(0)
                for chunk in content.chunks():
                    handle.write(chunk.encode() if isinstance(chunk, str) else chunk)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, self.file_permissions_mode or 0o640)
            while True:
                try:
                    os.link(tmp, target)
                    break
                except FileExistsError:
                    name = self.get_available_name(name)
                    target = Path(self.path(name))
        finally:
            Path(tmp).unlink(missing_ok=True)
        return os.path.relpath(target, self.location).replace(os.sep, "/")
