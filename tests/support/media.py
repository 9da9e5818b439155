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
    where MEDIA_ROOT and INDEX_DIR say where they are)."""
    if settings.MEDIA_STORE != "s3":
        return {}
    # The reference indexes beside them, in a folder of the test's own too: a memory another
    # test published must not reach this one.
    return {"STORAGES": {**settings.STORAGES, **{
        alias: {**settings.STORAGES[alias], "OPTIONS": {
            **settings.STORAGES[alias]["OPTIONS"], "location": location}}
        for alias, location in (("default", folder), ("indexes", f"{folder}-indexes"))}}}


def environment() -> dict[str, str]:
    """What a process the test starts (worker, web server, DICOM receiver) needs to see the
    test's media and reference indexes."""
    env = {"RADREVIEW_MEDIA_ROOT": str(settings.MEDIA_ROOT)}
    if in_bucket():
        options = settings.STORAGES["default"]["OPTIONS"]
        if "indexes" in settings.STORAGES:  # not when a test's own store holds the media only
            env["RADREVIEW_S3_INDEX_PREFIX"] = settings.STORAGES["indexes"]["OPTIONS"]["location"]
        env.update(RADREVIEW_MEDIA_STORE="s3", RADREVIEW_S3_MEDIA_PREFIX=options["location"],
                   RADREVIEW_S3_ENDPOINT=options["endpoint_url"] or "",
                   RADREVIEW_S3_BUCKET=options["bucket_name"],
                   RADREVIEW_S3_ACCESS_KEY_ID=options["access_key"] or "",
                   RADREVIEW_S3_SECRET_ACCESS_KEY=options["secret_key"] or "")
    return env


def point_at(settings_fixture, store, folder: str) -> None:
    """Media in ``store`` (tests.support.object_store.ObjectStore) under ``folder``, whatever
    the pass: for tests that stop and start the store themselves."""
    settings_fixture.MEDIA_STORE = "s3"
    settings_fixture.STORAGES = {**settings.STORAGES, "default": {
        "BACKEND": "radreview.media.bucket.BucketStorage",
        "OPTIONS": store.storage_options(folder)}}


def stored(folder: str = "") -> list[str]:
    """Every stored name under ``folder``, sorted."""
    return list(storage.list_files(folder))


def exists(name: str) -> bool:
    return storage.exists(name)


def read(name: str) -> bytes:
    return storage.read_media(name)


def remove(name: str) -> None:
    storage.delete(name)
