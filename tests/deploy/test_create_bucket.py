"""docker/create_bucket.py (the entrypoint's create-bucket) against a real S3-compatible server,
moto's, started on loopback."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import boto3
import pytest

from tests.support.object_store import ObjectStore
from tests.support.sockets import free_port

from .manifests import ROOT

SCRIPT = ROOT / "docker" / "create_bucket.py"


@pytest.fixture
def object_store():
    store = ObjectStore()
    store.start(create_bucket=False)  # the script under test makes it
    yield store.endpoint
    store.close()


def store_env(endpoint: str, bucket: str) -> dict:
    return {**os.environ, "RADREVIEW_S3_ENDPOINT": endpoint, "RADREVIEW_S3_BUCKET": bucket,
            "RADREVIEW_S3_REGION": "us-east-1", "RADREVIEW_S3_ACCESS_KEY_ID": "test-only",
            "RADREVIEW_S3_SECRET_ACCESS_KEY": "test-only"}


def run_script(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True,
                          text=True, timeout=120)


def test_creates_the_bucket_versioned_once_and_leaves_it_after(object_store):
    env = store_env(object_store, "radreview-media")
    first = run_script(env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "bucket radreview-media created (versioning: Enabled)"
    s3 = boto3.client("s3", endpoint_url=object_store, region_name="us-east-1",
                      aws_access_key_id="test-only", aws_secret_access_key="test-only")
    assert s3.get_bucket_versioning(Bucket="radreview-media")["Status"] == "Enabled"
    s3.put_object(Bucket="radreview-media", Key="media/kept", Body=b"an image")

    again = run_script(env)  # every release's migration Job runs it again
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "bucket radreview-media exists (versioning: Enabled)"
    assert s3.get_object(Bucket="radreview-media", Key="media/kept")["Body"].read() == b"an image"


def test_an_existing_bucket_keeps_its_own_versioning(object_store):
    s3 = boto3.client("s3", endpoint_url=object_store, region_name="us-east-1",
                      aws_access_key_id="test-only", aws_secret_access_key="test-only")
    s3.create_bucket(Bucket="operators-bucket")
    done = run_script(store_env(object_store, "operators-bucket"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "bucket operators-bucket exists (versioning: off)"
    assert "Status" not in s3.get_bucket_versioning(Bucket="operators-bucket")


def test_fails_when_the_store_cannot_be_reached(monkeypatch):
    spec = importlib.util.spec_from_file_location("create_bucket", SCRIPT)
    create_bucket = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(create_bucket)
    env = store_env(f"http://127.0.0.1:{free_port()}", "radreview")
    for key, value in env.items():
        if key.startswith("RADREVIEW_S3_"):
            monkeypatch.setenv(key, value)
    assert create_bucket.main(attempts=2, pause=0.1) == 1
