"""A retried upload never duplicates (issue 19): the API's Idempotency-Key header and the upload
page's hidden token return the first upload's studies instead of creating more, also while the
broker is down (the send is deferred, the study exists, the retry gets it)."""
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from kombu.exceptions import OperationalError as BrokerError
from rest_framework.test import APIClient

from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.studies.models import Study, UploadKey
from tests.support import dicom_factory as dicom

REPORT = "FINDINGS: Heart size is normal. Lungs are clear.\nIMPRESSION: No acute disease."
pytestmark = pytest.mark.django_db


@pytest.fixture
def broker(monkeypatch):
    state = {"down": False, "sent": []}

    def send(job_id, queue):
        if state["down"]:
            raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        state["sent"].append(job_id)

    monkeypatch.setattr(jobs, "send", send)
    return state


def post(api_client, key=None, text=REPORT):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key is not None else {}
    return api_client.post("/api/studies/", {"report_text": text}, format="multipart", **headers)


def test_a_retry_with_the_same_key_returns_the_first_study(api_client, broker):
    first = post(api_client, "upload-7f3a")
    again = post(api_client, "upload-7f3a")
    assert first.status_code == 201 and "Idempotency-Replayed" not in first.headers
    assert again.status_code == 200 and again.headers["Idempotency-Replayed"] == "true"
    assert again.json()["studies"][0]["id"] == first.json()["studies"][0]["id"]
    assert Study.objects.count() == 1 and Job.objects.filter(state="queued").count() == 1


@pytest.mark.django_db(transaction=True)  # the send runs on commit
def test_retries_during_and_after_a_broker_outage_make_exactly_one_study(api_client, broker):
    broker["down"] = True
    during = post(api_client, "key-outage")
    assert during.status_code == 201  # the study exists: never a 500 for it
    assert post(api_client, "key-outage").status_code == 200
    broker["down"] = False
    after = post(api_client, "key-outage")
    assert after.status_code == 200 and after.headers["Idempotency-Replayed"] == "true"
    assert Study.objects.count() == 1
    job = Job.objects.get(state="queued")
    assert job.send_failures == 1  # left for the reconciler, which sends it again


def test_without_a_key_every_post_is_a_new_upload(api_client, broker):
    post(api_client)
    post(api_client)
    assert Study.objects.count() == 2


def test_keys_belong_to_their_user(api_client, site_admin, broker):
    post(api_client, "shared-key")
    other = APIClient()
    other.force_authenticate(site_admin)
    assert post(other, "shared-key").status_code == 201
    assert Study.objects.count() == 2


def test_a_different_key_is_a_new_upload(api_client, broker):
    post(api_client, "key-1")
    post(api_client, "key-2")
    assert Study.objects.count() == 2


@pytest.mark.parametrize("key", ["", "x" * 129, "with space", "naïve"])
def test_a_malformed_key_is_refused_or_ignored(api_client, broker, key):
    response = post(api_client, key)
    if key == "":
        assert response.status_code == 201  # an empty header is no key
    else:
        assert response.status_code == 400 and "idempotency key" in response.json()["detail"]
        assert Study.objects.count() == 0


def test_a_refused_upload_does_not_use_up_its_key(api_client, broker):
    assert post(api_client, "key-r", text="").status_code == 400
    assert not UploadKey.objects.exists()
    assert post(api_client, "key-r").status_code == 201


def test_a_multi_study_upload_replays_all_its_studies(api_client, broker):
    files = [SimpleUploadedFile("a.dcm", dicom.make_dicom(study_uid="1.2.3.4")),
             SimpleUploadedFile("b.dcm", dicom.make_dicom(study_uid="1.2.3.5", seed=2))]
    first = api_client.post("/api/studies/", {"files": files}, format="multipart",
                            HTTP_IDEMPOTENCY_KEY="two-studies")
    again = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart",
                            HTTP_IDEMPOTENCY_KEY="two-studies")
    ids = sorted(study["id"] for study in first.json()["studies"])
    assert len(ids) == 2 and sorted(s["id"] for s in again.json()["studies"]) == ids
    assert Study.objects.count() == 2


def test_the_upload_page_carries_a_fresh_token_and_a_resent_form_uploads_once(
        radiologist_client, broker):
    page = radiologist_client.get("/studies/upload/").content.decode()
    token = re.search(r'name="upload_token" value="([0-9a-f]{32})"', page).group(1)
    other = radiologist_client.get("/studies/upload/").content.decode()
    assert token not in other  # each page shown gets its own
    form = {"report_text": REPORT, "upload_token": token}
    first = radiologist_client.post("/studies/upload/", form)
    again = radiologist_client.post("/studies/upload/", form, follow=True)
    study = Study.objects.get()
    assert first.status_code == 302 and first["Location"] == f"/studies/{study.pk}/"
    assert again.redirect_chain[-1][0] == f"/studies/{study.pk}/"
    assert "already received" in again.content.decode()


def test_the_api_schema_documents_the_header(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json")
    if schema.status_code == 404:
        pytest.skip("no schema endpoint")
    assert "Idempotency-Key" in schema.content.decode()
