"""Upload hardening: fake .dcm files, re-sent instances and oversized bodies are refused with
their messages and nothing is stored; the page warns when nothing can draft a report; the
admins' setup checklist."""
import pytest
from django.test import Client

from radreview.studies.models import Study

from .test_upload import assert_nothing_stored, dcm, raw, upload_api, upload_page

pytestmark = pytest.mark.django_db


def test_a_text_file_named_dcm_is_refused_as_not_dicom(radiologist_client, api_client):
    fake = raw("chest.dcm", b"FINDINGS: Lungs are clear.\n")
    response = upload_page(radiologist_client, [fake])
    assert response.status_code == 400 and "chest.dcm: not DICOM" in response.content.decode()
    response = upload_api(api_client, [raw("chest.dcm", b"FINDINGS: Lungs are clear.\n")])
    assert "chest.dcm: not DICOM" in response.json()["detail"]
    assert_nothing_stored()


def test_a_re_sent_instance_is_refused_naming_the_study_it_is_in(radiologist_client):
    options = {"study_uid": "1.2.3.4", "sop_uid": "1.2.3.4.1.1", "seed": 3}
    first = upload_page(radiologist_client, [dcm("a.dcm", **options)])
    study = Study.objects.get()
    assert first.status_code == 302
    again = upload_page(radiologist_client, [dcm("again.dcm", **options)])
    assert again.status_code == 400
    assert f"again.dcm: this image is already in study #{study.pk}" in again.content.decode()
    assert Study.objects.count() == 1 and study.images.count() == 1


def test_an_oversized_body_is_refused_before_it_is_read(radiologist_client, settings):
    """The declared length alone gets the answer: the body holds a sliver of what it declares,
    and reading past it would fail the request (the test client's payload refuses)."""
    settings.MAX_UPLOAD_STUDY_BYTES = 1024 * 1024
    response = radiologist_client.generic(
        "POST", "/studies/upload/", b"--xyz\r\n" + b"x" * 1000,
        content_type="multipart/form-data; boundary=xyz", CONTENT_LENGTH=str(500 * 1024 * 1024))
    assert response.status_code == 413
    assert "The upload is 500 MB; the limit per study is 1 MB." in response.content.decode()
    assert not Study.objects.exists()


def test_the_upload_page_says_when_no_report_can_be_drafted(radiologist_client):
    page = radiologist_client.get("/studies/upload/").content.decode()
    assert 'id="no-drafting"' in page and "Drafting is not set up on this site" in page
    assert "manage.py" not in page


def test_the_setup_checklist_shows_what_is_done_and_the_next_step(admin_client_, radiologist):
    page = admin_client_.get("/site/setup/").content.decode()
    for step in ("reference_reports", "image_memory", "role_generator", "dicom_receiver",
                 "pacs_destination", "pacs_import"):
        assert f'data-step="{step}"' in page
    assert 'data-step="dicom_receiver" data-done="no"' in page
    assert "RADREVIEW_PACS_STORE=AE_TITLE@host:port" in page
    reader = Client()
    reader.force_login(radiologist)
    assert reader.get("/site/setup/").status_code == 403


def test_a_report_alone_takes_patient_name_id_and_accession(radiologist_client):
    response = radiologist_client.post("/studies/upload/", {
        "report_text": "FINDINGS: Lungs are clear.", "patient_name": "Roe^Rita",
        "patient_id": "P-9", "accession_number": "ACC-9"})
    study = Study.objects.get()
    assert response.status_code == 302
    assert (study.patient_name, study.patient_id, study.accession_number) == (
        "Roe^Rita", "P-9", "ACC-9")
