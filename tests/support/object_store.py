"""An S3-compatible object store for tests: moto's server, a separate process on loopback.

``start(port)`` returns the endpoint (with its bucket "radreview" created) and a function that
stops the server. Nothing is kept: a new server starts empty.
"""
from __future__ import annotations

import contextlib
import socket
import subprocess
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

import boto3

BUCKET = "radreview"
REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "radreview-test", "aws_secret_access_key": "radreview-test"}


def start(port: int) -> tuple[str, Callable[[], None]]:
    binary = Path(sysconfig.get_path("scripts")) / "moto_server"
    process = subprocess.Popen([str(binary), "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop() -> None:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"moto_server exited ({process.returncode}); is port {port} taken?")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        if time.monotonic() > deadline:
            stop()
            raise RuntimeError("moto_server did not start")
        time.sleep(0.1)
    boto3.client("s3", endpoint_url=endpoint, region_name=REGION,
                 **CREDENTIALS).create_bucket(Bucket=BUCKET)
    return endpoint, stop


def s3_options(endpoint: str) -> dict:
    """django-storages S3Storage options for the bucket at ``endpoint``."""
    return {"bucket_name": BUCKET, "endpoint_url": endpoint, "region_name": REGION,
            "access_key": CREDENTIALS["aws_access_key_id"],
            "secret_key": CREDENTIALS["aws_secret_access_key"], "file_overwrite": False,
            "default_acl": None, "querystring_auth": True}
