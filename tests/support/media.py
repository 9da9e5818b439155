"""The media as the tests see them, on the filesystem (MEDIA_ROOT) or in the object store (the
second pass of scripts/test.sh): stored names, through the app's own storage module."""
from __future__ import annotations

import uuid

from django.conf import settings

from radreview.studies import storage


def in_bucket() -> bool:
    return storage.in_bucket()


def own_folder() -> str:
    """A folder of its own in the shared bucket, for a test or a module."""
    return f"tests/{uuid.uuid4().hex}"


def overrides(folder: str) -> dict:
    """The settings that put the media under ``folder`` in the bucket (none on the filesystem,
    where MEDIA_ROOT says where they are)."""
    if settings.MEDIA_STORE != "s3":
        return {}
    default = settings.STORAGES["default"]
    return {"STORAGES": {**settings.STORAGES, "default": {
        **default, "OPTIONS": {**default["OPTIONS"], "location": folder}}}}


def environment() -> dict[str, str]:
    """What a process the test starts (worker, web server, DICOM receiver) needs to see the
    test's media."""
    env = {"RADREVIEW_MEDIA_ROOT": str(settings.MEDIA_ROOT)}
    if in_bucket():
        env["RADREVIEW_S3_MEDIA_PREFIX"] = settings.STORAGES["default"]["OPTIONS"]["location"]
    return env


def stored(folder: str = "") -> list[str]:
    """Every stored name under ``folder``, sorted."""
    return list(storage.list_files(folder))


def exists(name: str) -> bool:
    return storage.exists(name)


def read(name: str) -> bytes:
    return storage.read_media(name)


def remove(name: str) -> None:
    storage.delete(name)
