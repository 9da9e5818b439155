"""The reference indexes in the object store, for a site on several hosts (issue 34).

With ``STORAGES["indexes"]`` (``RADREVIEW_MEDIA_STORE=s3``) the bucket holds the indexes and
``settings.INDEX_DIR`` is each host's copy of them. Without it the folder is the store and
everything here does nothing.

* A writer (an import, a rebuild, a training) works inside ``writing(kind)``: this host's copy
  is first brought up to date, then each ``publish()`` uploads the files under a version name
  of their own (never overwritten) and, last, the small pointer ``<kind>/CURRENT`` naming that
  version: a reader never finds a pointer to files still on their way, and a publish that
  fails midway leaves every host on the version before.
* A reader calls ``pull(kind)`` before it opens an index: one GET of the pointer (at most every
  ``INDEX_CHECK_SECONDS`` per process), and only when it names another version than this host
  holds, that version's files are downloaded beside the copy and put in place with renames,
  as a local save would.
* The bucket keeps the current version and the one before (a reader may still be downloading
  it), and versions newer than those (another host's publish under way).
"""
from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import logging
import math
import os
import posixpath
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.core.files.storage import storages

from radreview.errors import ServiceError
from workers.atomic import replacing
from workers.imagememory.memory import (
    ImageMemoryError,
    generation_files,
    install_generation,
    memory_dir,
    read_summary,
)

logger = logging.getLogger(__name__)

POINTER = "CURRENT"
# ValueError, KeyError: a pointer that is not the JSON object a publish writes.
FAILURES = (BotoCoreError, ClientError, OSError, ValueError, KeyError)


class IndexStoreError(ServiceError):
    """The reference indexes could not be published to or pulled from the object store."""


@dataclass(frozen=True)
class Generations:
    """The image memory: a version is one generation folder (workers/imagememory/memory.py)."""

    name: str

    def folder(self) -> Path:
        return memory_dir(settings.INDEX_DIR)

    def files(self) -> dict[str, Path]:
        return generation_files(self.folder())

    def install(self, staging: Path) -> None:
        install_generation(self.folder(), staging)

    def meta(self) -> dict:
        """The generation's summary, so the library page needs no copy of the index."""
        try:
            return read_summary(self.folder()) or {}
        except ImageMemoryError:
            return {}


@dataclass(frozen=True)
class Files:
    """Loose files of one folder, each replaced whole; ``globs`` gives their paths (a name
    may be a glob pattern), all in one folder."""

    name: str
    globs: Callable[[], list[Path]]

    def folder(self) -> Path:
        return Path(self.globs()[0]).parent

    def files(self) -> dict[str, Path]:
        return {p.name: p for pattern in self.globs()
                for p in sorted(Path(pattern).parent.glob(Path(pattern).name)) if p.is_file()}

    def install(self, staging: Path) -> None:
        for path in sorted(staging.iterdir()):
            os.replace(path, self.folder() / path.name)

    def meta(self) -> dict:
        return {}


IMAGE_MEMORY = Generations("image_memory")
# text_library.index_path() and sentence_store_path(): the report vectors and sentence vectors.
TEXT = Files("text", lambda: [Path(settings.INDEX_DIR) / "text.faiss",
                              Path(settings.INDEX_DIR) / "text-sentences-*.npz"])
PHRASE_RETRIEVER = Files("phrase_retriever", lambda: [Path(settings.RARRG_RETRIEVER_CHECKPOINT)])
KINDS = (IMAGE_MEMORY, TEXT, PHRASE_RETRIEVER)


def enabled() -> bool:
    return "indexes" in settings.STORAGES


class _Bucket:
    def __init__(self):
        storage = storages["indexes"]
        self.client = storage.connection.meta.client
        self.name = storage.bucket_name
        self.location = storage.location

    def key(self, *parts: str) -> str:
        return posixpath.join(self.location, *parts)

    def pointer(self, kind) -> dict | None:
        try:
            body = self.client.get_object(Bucket=self.name, Key=self.key(kind.name, POINTER))
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
                return None
            raise
        return json.loads(body["Body"].read())

    def versions(self, kind) -> list[str]:
        prefix = self.key(kind.name) + "/"
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.name, Prefix=prefix, Delimiter="/")
        return sorted(p["Prefix"][len(prefix):].rstrip("/")
                      for page in pages for p in page.get("CommonPrefixes", ()))

    def delete_version(self, kind, version: str) -> None:
        pages = self.client.get_paginator("list_objects_v2").paginate(
            Bucket=self.name, Prefix=self.key(kind.name, version) + "/")
        for page in pages:
            keys = [{"Key": item["Key"]} for item in page.get("Contents", ())]
            if keys:
                self.client.delete_objects(Bucket=self.name, Delete={"Objects": keys})


def _state_dir() -> Path:
    return Path(settings.INDEX_DIR) / ".index-store"


def held_version(kind) -> str | None:
    """The version this host's copy holds (None: none pulled or published from here)."""
    try:
        return (_state_dir() / kind.name).read_text(encoding="utf-8").strip() or None
    except FileNotFoundError:
        return None


def _holds(kind, pointer: dict) -> bool:
    """Whether this host's copy is the pointer's version, its files all there (a copy an
    operator deleted is downloaded again)."""
    return pointer["version"] == held_version(kind) and set(pointer["files"]) <= set(kind.files())


def _hold(kind, version: str) -> None:
    with replacing(_state_dir() / kind.name) as partial:
        partial.write_text(version, encoding="utf-8")


@contextlib.contextmanager
def _host_lock(kind) -> Iterator[None]:
    """One process of this host at a time changes its copy of ``kind`` (pulls and writers)."""
    _state_dir().mkdir(parents=True, exist_ok=True)
    with open(_state_dir() / f"{kind.name}.lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def published(kind) -> dict | None:
    """The pointer of ``kind`` in the store: version, files, the version before, meta."""
    if not enabled():
        return None
    return _Bucket().pointer(kind)


# (kind, INDEX_DIR) -> when this process last found its host's copy current (monotonic)
_checked: dict[tuple[str, str], float] = {}


def pull(kind, *, strict: bool = False) -> bool:
    """Bring this host's copy to the published version; True when files were downloaded.
    A reader that found the copy current less than ``INDEX_CHECK_SECONDS`` ago does not ask
    again. A store that cannot be read is logged and the host goes on with its copy
    (``strict``: IndexStoreError instead, for writers, who ask every time and must not build on
    an old version)."""
    if not enabled():
        return False
    checked = (kind.name, str(settings.INDEX_DIR))
    if not strict and time.monotonic() - _checked.get(checked, -math.inf) \
            < settings.INDEX_CHECK_SECONDS:
        return False
    try:
        bucket = _Bucket()
        pointer = bucket.pointer(kind)
        if pointer is None or _holds(kind, pointer):
            _checked[checked] = time.monotonic()
            return False
        with _host_lock(kind):
            pulled = _pull_held(bucket, kind)
        _checked[checked] = time.monotonic()
        return pulled
    except FAILURES as exc:
        if strict:
            raise IndexStoreError(f"The {kind.name} index could not be read from the object "
                                  f"store ({type(exc).__name__}: {exc}).") from exc
        logger.warning("%s index: the object store cannot be read (%s); this host goes on "
                       "with its copy", kind.name, type(exc).__name__)
        return False


def _pull_held(bucket: _Bucket, kind, *, writer: bool = False) -> bool:
    """``pull`` with the host lock held: the pointer again (another process of this host may
    have pulled meanwhile), and its files into a folder beside the copy. A writer whose copy
    is the current version but lacks files does not download them: an operator deleted them
    to have them made again (the text index after a change of text embedder)."""
    pointer = bucket.pointer(kind)
    if pointer is None or pointer["version"] == held_version(kind) and (
            writer or _holds(kind, pointer)):
        return False
    folder = kind.folder()
    folder.mkdir(parents=True, exist_ok=True)
    for left in folder.glob(f".pull-{kind.name}-*"):  # a pull killed midway, under this lock
        shutil.rmtree(left, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(dir=folder, prefix=f".pull-{kind.name}-"))
    try:
        for name in pointer["files"]:
            key = bucket.key(kind.name, pointer["version"], name)
            bucket.client.download_file(bucket.name, key, str(staging / name))
        kind.install(staging)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _hold(kind, pointer["version"])
    logger.info("%s index: version %s pulled from the object store", kind.name,
                pointer["version"])
    return True


@contextlib.contextmanager
def writing(kind) -> Iterator[Callable[[], str | None]]:
    """For a writer: the host's copy of ``kind`` brought up to date, then the block, which calls
    the function it is given after each save to publish what it saved."""
    if not enabled():
        yield lambda: None
        return
    with _host_lock(kind):
        bucket = _Bucket()
        try:
            _pull_held(bucket, kind, writer=True)
        except FAILURES as exc:
            raise IndexStoreError(f"The {kind.name} index could not be read from the object "
                                  f"store ({type(exc).__name__}: {exc}); nothing was changed."
                                  ) from exc
        yield lambda: _publish(bucket, kind)


def _new_version() -> str:
    # Names sort by time: pruning keeps what is newer than the version before the current one.
    return f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S%fZ}-{secrets.token_hex(4)}"


def _publish(bucket: _Bucket, kind) -> str | None:
    files = kind.files()
    if not files:
        return None
    version = _new_version()
    try:
        for name, path in files.items():
            bucket.client.upload_file(str(path), bucket.name, bucket.key(kind.name, version, name))
        before = bucket.pointer(kind)
        pointer = {"version": version, "files": sorted(files),
                   "previous": before["version"] if before else None, "meta": kind.meta()}
        bucket.client.put_object(Bucket=bucket.name, Key=bucket.key(kind.name, POINTER),
                                 Body=json.dumps(pointer).encode(),
                                 ContentType="application/json")
    except FAILURES as exc:
        raise IndexStoreError(
            f"The {kind.name} index was saved on this host but could not be published to the "
            f"object store ({type(exc).__name__}: {exc}); the other hosts keep the version "
            f"before. Run the import (or the rebuild) again to publish it.") from exc
    _hold(kind, version)
    logger.info("%s index: version %s published", kind.name, version)
    _prune(bucket, kind, pointer)
    return version


def _prune(bucket: _Bucket, kind, pointer: dict) -> None:
    oldest_kept = pointer["previous"] or pointer["version"]
    try:
        for version in bucket.versions(kind):
            if version < oldest_kept:
                bucket.delete_version(kind, version)
    except FAILURES:  # the next publish prunes again
        logger.warning("%s index: old versions could not be removed", kind.name, exc_info=True)


def publish_local() -> list[str]:
    """Publish this host's copy of each index the store has no version of yet (a site moving
    its indexes into the object store); the kinds published, by name."""
    done = []
    for kind in KINDS:
        with _host_lock(kind):
            bucket = _Bucket()
            try:
                unpublished = bucket.pointer(kind) is None
            except FAILURES as exc:
                raise IndexStoreError(f"The object store cannot be read ({exc}).") from exc
            if unpublished and _publish(bucket, kind):
                done.append(kind.name)
    return done
