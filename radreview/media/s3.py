"""How uploads to the object store hold memory: part by part, at most two parts at a time.

django-storages hands a file to boto3's ``upload_fileobj``, which reads it in parts (a multipart
upload above ``multipart_threshold``); by default up to ten parts are read ahead into memory,
80 MiB for a large DICOM series. Two parts of 8 MiB keep an upload's memory bounded, whatever
the file's size (bench: a 24 MiB and a 96 MiB file both peak at about 41 MiB of Python memory,
checksums included; tests/web/media/test_object_store.py). Imported by the settings: no Django.
"""
from boto3.s3.transfer import TransferConfig

PART = 8 * 1024 * 1024
PARTS_IN_MEMORY = 2


def transfer_config() -> TransferConfig:
    config = TransferConfig(multipart_threshold=PART, multipart_chunksize=PART,
                            max_concurrency=PARTS_IN_MEMORY)
    # s3transfer's own knob, not among boto3's arguments: parts read ahead of their upload.
    config.max_in_memory_upload_chunks = PARTS_IN_MEMORY
    return config
