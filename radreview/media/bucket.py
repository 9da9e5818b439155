"""The media's storage class in the object store: django-storages' S3Storage with one loader of
botocore's model files per process.

Each S3Storage makes a boto3 session per thread, and each new session parses botocore's JSON
models of S3 and its endpoints again: about 0.17 s of CPU, paid by every web thread's first
request and by every storage a process makes (the tests make one per test). The parsed models
depend on nothing but the installed botocore, so one loader serves every session.
"""
from __future__ import annotations

import boto3
import botocore.loaders
import botocore.session
from storages.backends.s3 import S3Storage

_LOADER = botocore.loaders.create_loader()


class BucketStorage(S3Storage):
    def _create_session(self):
        core = botocore.session.get_session()
        core.register_component("data_loader", _LOADER)
        if self.session_profile:
            return boto3.Session(profile_name=self.session_profile, botocore_session=core)
        return boto3.Session(aws_access_key_id=self.access_key,
                             aws_secret_access_key=self.secret_key,
                             aws_session_token=self.security_token, botocore_session=core)
