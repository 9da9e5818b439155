"""Media files (uploads, previews, renders, inbox and PACS-import files), wherever they live.

Every read and write of media goes through Django's storage API (``default_storage``): on the
embedded default that is the folder MEDIA_ROOT, written so that a crash never leaves half a file
behind (``AtomicFileSystemStorage``); with ``RADREVIEW_MEDIA_STORE=s3`` it is one S3-compatible
bucket that every host shares, where a PUT (or a multipart upload) is all-or-nothing by itself
(docs/operations.md, "Object storage"). Pure ``workers/`` code reads files by path: inside
``local_copies()`` a stored file is fetched into a folder of this process's own, removed when
the block ends; on the filesystem the stored file's own path is used, as before.
"""
from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from pathlib import Path
from typing import BinaryIO

from botocore.exceptions import BotoCoreError, ClientError, HTTPClientError
from botocore.exceptions import ConnectionError as BotoConnectionError
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, default_storage
from django.http import FileResponse

from radreview.errors import ServiceError

MISSING_ORIGINAL = ("The image file of this study is missing from the server's storage. Nothing "
                    "can be shown or computed from it: tell your administrator (the setup "
                    "checklist lists the studies whose files are missing).")
CHUNK = 1 << 20

logger = logging.getLogger(__name__)


class OriginalMissing(ServiceError):
    """A study's image file is not where its row says: answered 410 with ``MISSING_ORIGINAL``
    by pages and the API, and the reason a stage that needs it fails."""

    def __init__(self, message: str = MISSING_ORIGINAL):
        super().__init__(message)


def in_bucket() -> bool:
    """Whether media live in the object store rather than in MEDIA_ROOT."""
    return settings.MEDIA_STORE == "s3"


def media_path(relative: str) -> Path:
    """The path of a stored name on the filesystem store (never in the bucket's mode)."""
    path = (Path(settings.MEDIA_ROOT) / relative).resolve()
    if Path(settings.MEDIA_ROOT).resolve() not in path.parents:
        raise ValueError("media path escapes MEDIA_ROOT")
    return path


def _checked(name: str) -> str:
    """``name`` unless it climbs out of the media (``..``, an absolute path)."""
    parts = Path(name).parts
    if not name or Path(name).is_absolute() or ".." in parts:
        raise ValueError("media name escapes the media store")
    return name


def exists(name: str) -> bool:
    if not in_bucket():
        return media_path(name).is_file()
    return default_storage.exists(_checked(name))


def open_media(name: str) -> BinaryIO:
    """A stored file, open for reading; ``FileNotFoundError`` when it is not there."""
    if not in_bucket():
        try:
            return media_path(name).open("rb")
        except IsADirectoryError:
            raise FileNotFoundError(name) from None
    return default_storage.open(_checked(name), "rb")


def read_media(name: str) -> bytes:
    with open_media(name) as handle:
        return handle.read()


def write_media_atomically(relative: str, data: bytes) -> str:
    """Store ``data`` under ``relative``, replacing what was there, whole or not at all; return
    ``relative``. Previews, renders and inbox files have names of their own, made again on a
    retry, so a replace is what is wanted (an original's name is never reused: ``save``)."""
    if in_bucket():
        # ``_save`` stores under exactly this name; ``save`` would pick a free one instead.
        default_storage._save(_checked(relative), ContentFile(data))
        return relative
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


def delete(name: str) -> None:
    if not in_bucket():
        media_path(name).unlink(missing_ok=True)
    else:
        default_storage.delete(_checked(name))


def list_files(folder: str) -> Iterator[str]:
    """Every stored name under ``folder`` (relative to the media), at any depth, sorted."""
    if not in_bucket():
        root = Path(settings.MEDIA_ROOT)
        base = media_path(folder) if folder else root
        yield from sorted(path.relative_to(root).as_posix() for path in base.rglob("*")
                          if path.is_file())
        return
    # One flat, paginated listing of the prefix (1000 names a request), where walking it with
    # ``listdir`` would cost a request per upload folder.
    location = default_storage.location.strip("/")
    prefix = "/".join(part for part in (location, _checked(folder).strip("/") if folder else "")
                      if part)
    skip = len(location) + 1 if location else 0
    yield from sorted(item.key[skip:] for item in default_storage.bucket.objects.filter(
        Prefix=f"{prefix}/" if prefix else ""))


def where() -> str:
    """Where the media are, for a person: the folder, or the bucket and its folder."""
    if not in_bucket():
        return str(settings.MEDIA_ROOT)
    return f"s3://{default_storage.bucket_name}/{default_storage.location}"


def remove_folder(folder: str) -> None:
    """Remove every stored file under ``folder`` (a job's own folder: the inbox, an import),
    as far as the store allows: what an outage leaves is removed by the next attempt."""
    if not in_bucket():
        shutil.rmtree(media_path(folder), ignore_errors=True)
        return
    try:
        for name in list_files(folder):
            default_storage.delete(name)
    except (BotoCoreError, ClientError) as exc:
        logger.warning("could not remove the media folder %s (%s)", folder, type(exc).__name__)


# --- local paths for the workers' code ---------------------------------------------------------

_copies: ContextVar[Path | None] = ContextVar("radreview_media_copies", default=None)


@contextmanager
def local_copies() -> Iterator[None]:
    """The block in which ``local_path`` may fetch stored files: into a folder of this
    process's own under the data folder, removed with everything in it when the block ends."""
    if not in_bucket() or _copies.get() is not None:
        yield
        return
    scratch = Path(settings.DATA_DIR) / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"media-{os.getpid()}-", dir=scratch))
    token = _copies.set(folder)
    try:
        yield
    finally:
        _copies.reset(token)
        shutil.rmtree(folder, ignore_errors=True)


def local_path(name: str) -> Path:
    """A path on this host holding the stored file ``name``; ``FileNotFoundError`` when it is
    not stored. In the bucket's mode only inside ``local_copies()``."""
    if not in_bucket():
        path = media_path(name)
        if not path.is_file():
            raise FileNotFoundError(name)
        return path
    folder = _copies.get()
    if folder is None:
        raise RuntimeError("local_path outside local_copies(): a fetched copy would be kept")
    target = folder / _checked(name)
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        with open_media(name) as source, tempfile.NamedTemporaryFile(
                dir=target.parent, prefix=".partial-", delete=False) as copy:
            shutil.copyfileobj(source, copy, CHUNK)
        os.replace(copy.name, target)
    return target


def local_root(names) -> Path:
    """A folder on this host under which each stored name of ``names`` lies, for code that
    resolves names against a media root (the image memory's reference images): MEDIA_ROOT on
    the filesystem; in the bucket's mode the ``local_copies()`` folder, the files fetched into
    it. Absolute names and files not stored are left to that code, as on the filesystem."""
    if not in_bucket():
        return Path(settings.MEDIA_ROOT)
    for name in names:
        if not Path(name).is_absolute():
            with suppress(FileNotFoundError):
                local_path(name)
    return _copies.get()


def original_path(image) -> Path:
    """A local path of an image's original file; ``OriginalMissing`` when it is not stored."""
    try:
        return local_path(image.original.name)
    except FileNotFoundError:
        raise OriginalMissing from None


def open_original(image) -> BinaryIO:
    """An image's original file, open for reading; ``OriginalMissing`` when it is not there."""
    try:
        return open_media(image.original.name)
    except FileNotFoundError:
        raise OriginalMissing from None


def read_original(image) -> bytes:
    with open_original(image) as handle:
        return handle.read()


def serve(name: str, content_type: str) -> FileResponse:
    """A stored file streamed to the browser by the app (which checked the login and the
    rights): never a bucket URL. ``FileNotFoundError`` when it is not stored."""
    return FileResponse(open_media(name), content_type=content_type)


def unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` says the object store cannot be reached (or answers that it is down),
    as opposed to a missing file or a refused request."""
    if exc is None or not in_bucket():
        return False
    if isinstance(exc, (BotoConnectionError, HTTPClientError)):
        return True
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return status >= 500
    return False


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
