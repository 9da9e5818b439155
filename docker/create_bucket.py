"""Make sure RadReview's bucket exists before any process uses it (docker/entrypoint.sh
"create-bucket"; the compose file's bucket step and the Kubernetes migration Job run it).

Reads the same variables as radreview/settings.py (RADREVIEW_S3_*). A missing bucket is
created with versioning on, so an overwritten or deleted object can be recovered from its
earlier version (docs/operations.md, "Backups with a bucket"). An existing bucket is left as it
is, its versioning reported: the operator's store, the operator's choice. Exits non-zero when
the store cannot be reached or refuses the credentials, so the step fails before the
application starts.
"""
from __future__ import annotations

import os
import sys
import time

import boto3
from botocore.exceptions import ClientError
from botocore.exceptions import ConnectionError as StoreUnreachable


def client():
    return boto3.client(
        "s3",
        endpoint_url=os.environ.get("RADREVIEW_S3_ENDPOINT") or None,
        region_name=os.environ.get("RADREVIEW_S3_REGION", "us-east-1"),
        aws_access_key_id=os.environ.get("RADREVIEW_S3_ACCESS_KEY_ID"),
        aws_secret_access_key=os.environ.get("RADREVIEW_S3_SECRET_ACCESS_KEY"),
    )


def bucket_exists(s3, bucket: str) -> bool:
    try:
        s3.head_bucket(Bucket=bucket)
    except ClientError as exc:
        if exc.response["Error"]["Code"] in ("404", "NoSuchBucket", "NotFound"):
            return False
        raise
    return True


def ensure_bucket(s3, bucket: str, region: str) -> str:
    """What was done, in one line for the log."""
    if bucket_exists(s3, bucket):
        status = s3.get_bucket_versioning(Bucket=bucket).get("Status", "off")
        return f"bucket {bucket} exists (versioning: {status})"
    options = {"Bucket": bucket}
    if region != "us-east-1":  # S3 refuses the default region named as a constraint
        options["CreateBucketConfiguration"] = {"LocationConstraint": region}
    s3.create_bucket(**options)
    try:
        s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    except ClientError as exc:
        if exc.response["Error"]["Code"] != "NotImplemented":
            raise
        # A store without versioning still works; the backups then rest on replication alone.
        return (f"bucket {bucket} created; this store does not version objects: replicate the "
                "bucket (docs/operations.md, 'Backups with a bucket')")
    return f"bucket {bucket} created (versioning: Enabled)"


def main(attempts: int = 30, pause: float = 2.0) -> int:
    bucket = os.environ.get("RADREVIEW_S3_BUCKET", "radreview")
    region = os.environ.get("RADREVIEW_S3_REGION", "us-east-1")
    s3 = client()
    # The store may still be starting (compose starts it beside this step): wait for it.
    for attempt in range(1, attempts + 1):
        try:
            print(ensure_bucket(s3, bucket, region), flush=True)
            return 0
        except StoreUnreachable as exc:  # refused, unknown host, timed out
            if attempt == attempts:
                print(f"the object store cannot be reached: {exc}", file=sys.stderr)
                return 1
            time.sleep(pause)
        except ClientError as exc:
            print(f"the object store refused: {exc}", file=sys.stderr)
            return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
