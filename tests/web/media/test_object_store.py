"""Media in a real S3-compatible server (moto's, tests/support/object_store.py), in either pass:
uploads stream to it part by part, the app serves what it holds (login and rights as on disk,
never a bucket URL), previews are replaced whole, and the copies fetched for workers' code are
removed after."""
import hashlib
import os
import tracemalloc

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.test import Client

from radreview.jobs.models import Job
from radreview.jobs.runner import run_job
from radreview.studies import storage
from radreview.studies.models import Image
from tests.support import dicom_factory as dicom
from tests.support import media

pytestmark = pytest.mark.django_db

MiB = 1 << 20


def stored_study(radiologist_client):
    data = dicom.make_dicom(seed=5, rows=200, cols=160)
    response = radiologist_client.post("/api/studies/", {"files": [ContentFile(data, "a.dcm")]})
    assert response.status_code == 201, response.content[:300]
    study_id = response.json()["studies"][0]["id"]
    return Image.objects.get(study_id=study_id), data


def test_a_large_upload_streams_to_the_store_part_by_part(object_store, settings):
    """What the upload stores is Django's temporary file of the request (larger than
    FILE_UPLOAD_MAX_MEMORY_SIZE); it goes to the bucket part by part, never read whole."""
    size = 96 * MiB
    assert size > settings.FILE_UPLOAD_MAX_MEMORY_SIZE
    upload = TemporaryUploadedFile("big.dcm", "application/dicom", size, None)
    digest = hashlib.sha256()
    for _ in range(size // MiB):
        block = os.urandom(MiB)
        digest.update(block)
        upload.write(block)
    upload.flush()
    tracemalloc.start()
    try:
        name = default_storage.save("originals/big/000.dcm", upload)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        upload.close()
    assert peak < size / 2, f"{peak / MiB:.0f} MiB held for a {size / MiB:.0f} MiB file"
    stored = object_store.client().get_object(
        Bucket=object_store.bucket, Key=f"{default_storage.location}/{name}")
    assert stored["ContentLength"] == size
    assert hashlib.sha256(stored["Body"].read()).hexdigest() == digest.hexdigest()


def test_previews_renders_and_originals_are_served_by_the_app(object_store, radiologist_client,
                                                             radiologist):
    image, data = stored_study(radiologist_client)
    assert media.read(image.original.name) == data
    run_job(Job.objects.get(study_id=image.study_id, stage="ingest").pk)
    image.refresh_from_db()
    base = f"/studies/{image.study_id}/images/{image.pk}"
    for variant in ("preview", "thumbnail"):
        response = radiologist_client.get(f"{base}/{variant}.png")
        assert response.status_code == 200 and response["Content-Type"] == "image/png"
        assert b"".join(response.streaming_content) == media.read(getattr(image, variant))
    render = radiologist_client.get(f"/images/studies/{image.study_id}/{image.pk}/lung.png")
    assert render.status_code == 200
    body = b"".join(render.streaming_content)
    assert body.startswith(b"\x89PNG")
    page = radiologist_client.get(f"/studies/{image.study_id}/").content.decode()
    assert object_store.endpoint not in page and "X-Amz-" not in page
    # Behind the login, as on disk: the bucket is never what the browser is sent to.
    anonymous = Client().get(f"{base}/preview.png")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_a_missing_original_is_answered_410(object_store, radiologist_client):
    image, _ = stored_study(radiologist_client)
    media.remove(image.original.name)
    response = radiologist_client.get(f"/images/studies/{image.study_id}/{image.pk}/lung.png")
    assert response.status_code == 410
    assert storage.MISSING_ORIGINAL in response.content.decode()


def test_a_preview_is_replaced_whole_and_fetched_copies_are_removed(object_store, settings):
    storage.write_media_atomically("studies/1/previews/1.png", b"first")
    storage.write_media_atomically("studies/1/previews/1.png", b"second")
    assert media.stored("studies") == ["studies/1/previews/1.png"]
    assert media.read("studies/1/previews/1.png") == b"second"
    with storage.local_copies():
        path = storage.local_path("studies/1/previews/1.png")
        assert path.read_bytes() == b"second"
        assert str(path).startswith(str(settings.DATA_DIR))
    assert not path.exists() and not path.parents[3].exists()  # the block's own folder
    with pytest.raises(RuntimeError):
        storage.local_path("studies/1/previews/1.png")  # outside a block, nothing is kept
    with storage.local_copies(), pytest.raises(FileNotFoundError):
        storage.local_path("studies/1/previews/2.png")
