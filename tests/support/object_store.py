"""A real S3-compatible server for the tests: moto's (``moto_server``, moto[server] from PyPI)
on loopback, as a process of its own that a test may stop and start again.

Debian packages no S3 server short of Ceph's gateway, and MinIO is not in Debian; moto's server
speaks the S3 REST protocol over HTTP (signatures, multipart uploads, listings), so the app talks
to it through boto3 exactly as to a real bucket (docs/operations.md, "Object storage").
It keeps its objects in memory: a restart comes back empty unless ``keep`` saved and restores
them (moto's own state endpoints), which the outage tests use to play a store that was down.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import boto3

from .sockets import free_port

ACCESS_KEY = "radreview-test"
SECRET_KEY = "radreview-test-secret"
BUCKET = "radreview"


class ObjectStore:
    def __init__(self, port: int | None = None, bucket: str = BUCKET):
        self.port = port or free_port()
        self.bucket = bucket
        self.folder = Path(tempfile.mkdtemp(prefix="radreview-s3-"))
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        """What points RadReview's media at this store."""
        return {"RADREVIEW_MEDIA_STORE": "s3", "RADREVIEW_S3_ENDPOINT": self.endpoint,
                "RADREVIEW_S3_BUCKET": self.bucket, "RADREVIEW_S3_REGION": "us-east-1",
                "RADREVIEW_S3_ACCESS_KEY_ID": ACCESS_KEY,
                "RADREVIEW_S3_SECRET_ACCESS_KEY": SECRET_KEY}

    def storage_options(self, location: str) -> dict:
        """django-storages S3Storage options for a folder of this store's bucket, as the
        settings make them in s3 mode (radreview/settings.py)."""
        from radreview.media.s3 import transfer_config  # noqa: PLC0415 - Django's side

        return {"bucket_name": self.bucket, "endpoint_url": self.endpoint,
                "region_name": "us-east-1", "access_key": ACCESS_KEY, "secret_key": SECRET_KEY,
                "file_overwrite": False, "default_acl": None, "querystring_auth": True,
                "querystring_expire": 300, "location": location,
                "transfer_config": transfer_config()}

    def client(self):
        return boto3.client("s3", endpoint_url=self.endpoint, region_name="us-east-1",
                            aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY)

    def start(self, create_bucket: bool = True) -> None:
        with contextlib.suppress(OSError):  # a server left on the port would answer for ours
            socket.create_connection(("127.0.0.1", self.port), 0.2).close()
            raise RuntimeError(f"port {self.port} is taken: another object store is running")
        moto = Path(sys.executable).with_name("moto_server")
        self._log = (self.folder / "moto.log").open("ab")
        self.process = subprocess.Popen(
            [str(moto) if moto.exists() else shutil.which("moto_server"), "-H", "127.0.0.1",
             "-p", str(self.port)],
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
            env=dict(os.environ, MOTO_ALLOW_NONEXISTENT_REGION="true"))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"moto_server exited; see {self.folder / 'moto.log'}")
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            time.sleep(0.1)
        else:
            raise RuntimeError("moto_server did not start")
        if create_bucket:
            with contextlib.suppress(self.client().exceptions.BucketAlreadyOwnedByYou):
                self.client().create_bucket(Bucket=self.bucket)

    def objects(self, prefix: str = "") -> dict[str, bytes]:
        client, found = self.client(), {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                     Prefix=prefix):
            for item in page.get("Contents", []):
                found[item["Key"]] = client.get_object(Bucket=self.bucket,
                                                       Key=item["Key"])["Body"].read()
        return found

    def stop(self, keep: bool = True) -> dict[str, bytes]:
        """Stop the server (a kill, as a crash would); with ``keep``, return its objects first,
        for ``start_with`` to put back: the data of a store that was only unreachable."""
        kept = self.objects() if keep and self.running else {}
        if self.running:
            self.process.kill()
            self.process.wait(timeout=10)
            self._log.close()
        return kept

    def start_with(self, objects: dict[str, bytes]) -> None:
        self.start()
        client = self.client()
        for key, data in objects.items():
            client.put_object(Bucket=self.bucket, Key=key, Body=data)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def close(self) -> None:
        self.stop(keep=False)
        shutil.rmtree(self.folder, ignore_errors=True)


def main() -> None:
    """``python -m tests.support.object_store PORT``: scripts/services.sh's store, until killed."""
    store = ObjectStore(int(sys.argv[1]))
    # scripts/services.sh stops it with SIGTERM: exit through ``finally``, so moto's server
    # (in a session of its own) goes with it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    store.start()
    print(store.endpoint, flush=True)
    try:
        store.process.wait()
    finally:
        store.close()


if __name__ == "__main__":
    main()
