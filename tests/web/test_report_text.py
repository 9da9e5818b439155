"""Reports must have text: control characters never reach storage, a report without readable text
is refused at upload, a report without sentences cannot be signed, and an oversized paste gets
a reason on the page as on the API."""
import json

import pytest
from django.test import Client

from radreview.studies.models import Report, Study
from tests import factories
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db

CONTROL_ONLY = "\x01\x02\x1b\x07\x7f \x0b\x0c\u202e\u200b\t\n\x85"


def test_a_report_of_only_control_characters_is_refused_on_page_and_api(
        radiologist_client, api_client):
    page = radiologist_client.post("/studies/upload/", {"report_text": CONTROL_ONLY})
    assert page.status_code == 400 and "no readable text" in page.content.decode()
    api = api_client.post("/api/studies/", {"report_text": CONTROL_ONLY}, format="multipart")
    assert api.status_code == 400 and "no readable text" in api.json()["detail"]
    assert not Study.objects.exists() and not Report.objects.exists()


def test_a_nul_character_is_refused_by_the_form_and_the_api(radiologist_client, api_client):
    page = radiologist_client.post("/studies/upload/", {"report_text": "No effusion.\x00"})
    assert page.status_code == 400 and "Null characters are not allowed" in page.content.decode()
    api = api_client.post("/api/studies/", {"report_text": "\x00"}, format="multipart")
    assert api.status_code == 400
    assert api.json()["report_text"] == ["Null characters are not allowed."]
    assert not Study.objects.exists()


def test_control_and_invisible_characters_are_removed_before_storage(api_client):
    text = "FINDINGS:\r\n\tNo \x1b[2Jpneumo\u200bthorax.\x07\r\nIMPRESSION: \u202eNormal\u202c.\x0c"
    response = api_client.post("/api/studies/", {"report_text": text}, format="multipart")
    assert response.status_code == 201, response.content
    stored = Report.objects.get().text
    assert stored == "FINDINGS:\n\tNo [2Jpneumothorax.\nIMPRESSION: Normal."


def test_candidate_and_samples_are_cleaned_and_checked_the_same_way(api_client):
    refused = api_client.post("/api/studies/", {
        "candidate_text": "No effusion.", "samples": ["No effusion.", CONTROL_ONLY],
    }, format="multipart")
    assert refused.status_code == 400
    assert "Sample 2 has no readable text" in refused.json()["detail"]
    accepted = api_client.post("/api/studies/", {
        "candidate_text": "No\x08 effusion.", "samples": ["No effusion.\x1b", "Clear\u200b lungs."],
    }, format="multipart")
    assert accepted.status_code == 201
    assert sorted(Report.objects.values_list("text", flat=True)) == [
        "Clear lungs.", "No effusion.", "No effusion."]


def test_deeply_nested_samples_json_is_refused_with_a_reason(api_client):
    nested = "[" * 1100 + "]" * 1100
    for field in ("samples_text",):
        response = api_client.post("/api/studies/", {"candidate_text": "No effusion.",
                                                     field: nested}, format="multipart")
        assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


def test_a_5_mb_paste_gets_the_same_status_and_reason_on_the_page_and_the_api(
        radiologist, api_client):
    """The page's form as a browser sends it, CSRF token and all: Django's CSRF check reads the
    form before the view does, which is where the size limit is met."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(radiologist)
    browser.get("/studies/upload/")
    paste = "No pneumothorax. " * (5 * 1024 * 1024 // 17)
    page = browser.post("/studies/upload/", {
        "report_text": paste, "csrfmiddlewaretoken": browser.cookies["csrftoken"].value})
    api = api_client.post("/api/studies/", {"report_text": paste}, format="multipart")
    assert page.status_code == api.status_code == 413
    reason = api.json()["detail"]
    assert reason == ("The pasted text is larger than 4 MB; a report may have at most 20,000 "
                      "characters.")
    html = page.content.decode()
    assert 'id="upload-error"' in html and reason in html and 'id="upload-form"' in html
    assert not Study.objects.exists()


def test_an_oversized_paste_elsewhere_gets_413_with_the_reason(radiologist):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(radiologist)
    browser.get("/studies/upload/")
    study = rf.make_review_study()
    response = browser.post(f"/studies/{study.pk}/review/decide/", {
        "text": "x" * (5 * 1024 * 1024), "csrfmiddlewaretoken": browser.cookies["csrftoken"].value},
        HTTP_HX_REQUEST="true")
    assert response.status_code == 413
    assert "The pasted text is larger than 4 MB" in response.content.decode()


def test_a_report_without_sentences_cannot_be_signed(radiologist_client, api_client):
    study = factories.make_study()
    factories.make_report(study, "...", with_sentences=False)
    rf.finish_pipeline(study)
    attestation = {"password": factories.PASSWORD, "attested": True}
    api = api_client.post(f"/api/studies/{study.pk}/signoffs/", {"version": 0, **attestation},
                          format="json")
    assert api.status_code == 400 and "no sentences" in api.json()["detail"]
    page = radiologist_client.post(f"/studies/{study.pk}/review/sign/",
                                   {"version": 0, "password": factories.PASSWORD,
                                    "attest": "on"},
                                   HTTP_HX_REQUEST="true")
    assert page.status_code == 422 and "no sentences" in page.content.decode()
    assert not study.signoffs.exists()


def test_an_edit_of_only_control_characters_is_refused_and_others_are_cleaned(api_client):
    study = rf.make_review_study()
    url = f"/api/studies/{study.pk}/decisions/"
    refused = api_client.post(url, {"action": "edit", "sentence": 1, "text": CONTROL_ONLY,
                                    "version": 0}, format="json")
    assert refused.status_code == 400
    edited = api_client.post(url, {"action": "edit", "sentence": 1,
                                   "text": "Heart size\x07 is \u202enormal.", "version": 0},
                             format="json")
    assert edited.status_code == 201, edited.content
    assert edited.json()["decision"]["after_text"] == "Heart size is normal."


def test_nested_json_bodies_get_400_with_a_reason_on_every_json_endpoint(api_client):
    study = rf.make_review_study()
    nested = "[" * 1100 + "]" * 1100
    for url in (f"/api/studies/{study.pk}/decisions/", f"/api/studies/{study.pk}/decisions/undo/",
                f"/api/studies/{study.pk}/signoffs/", "/api/auth/token/"):
        for body in (nested, "[" * 40 + "]" * 40, json.dumps({"a": "x" * (1100 * 1024)})):
            response = api_client.post(url, body, content_type="application/json")
            assert response.status_code == 400, (url, response.content[:200])
            assert "JSON" in response.json()["detail"]
