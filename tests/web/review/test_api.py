"""The review API: the same reads, decisions and permissions as the pages."""
import io

import pydicom
import pytest
from fhir.resources.R4B.diagnosticreport import DiagnosticReport
from knox.models import AuthToken
from rest_framework.test import APIClient

from radreview.review.models import Decision, SignOff
from tests import factories
from tests.web.review import factories as rf

ATTESTED = {"password": factories.PASSWORD, "attested": True}

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(site_admin) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(site_admin)[1]}")
    return api


def base(study):
    return f"/api/studies/{study.pk}"


def test_review_lists_sentences_flags_and_version(api_client):
    study = rf.make_review_study()
    body = api_client.get(f"{base(study)}/review/").json()
    assert (body["version"], body["flags"], body["open_flags"], body["report_flagged"]) == (
        0,
        4,
        4,
        True,
    )
    effusion = body["sentences"][rf.EFFUSION]
    assert (
        effusion["text"] == "There is a small left pleural effusion."
        and effusion["state"] == "unchanged"
    )
    assert (effusion["support"], effusion["support_n"], effusion["category"]) == (2, 10, "Pleura")
    assert (
        effusion["flag"]["suggestion"] == rf.EFFUSION_SUGGESTION
        and effusion["flag"]["open"] is True
    )
    assert [s["detector"] for s in effusion["flag"]["sources"]] == ["radflag", "correction"]
    assert body["sentences"][1]["flag"] is None
    assert api_client.get(f"{base(study)}/sentences/").json() == body["sentences"]


def test_detections_list_every_row_and_which_are_flags(api_client):
    study = rf.make_review_study()
    detections = api_client.get(f"{base(study)}/detections/").json()
    assert len(detections) == 13  # 8 raw rows and 5 combined ones
    flags = [d for d in detections if d["is_flag"]]
    assert sorted(d["sentence_index"] for d in flags) == sorted(rf.FLAGGED)
    assert all(d["detector"] == "combined" and d["sources"] for d in flags)


def test_post_decision_then_stale_version_gets_409(api_client):
    study = rf.make_review_study()
    made = api_client.post(
        f"{base(study)}/decisions/",
        {"action": "accept", "sentence": rf.EFFUSION, "version": 0},
        format="json",
    )
    assert made.status_code == 201
    assert made.json()["version"] == 1
    assert made.json()["decision"]["after_text"] == rf.EFFUSION_SUGGESTION
    stale = api_client.post(
        f"{base(study)}/decisions/",
        {"action": "reject", "sentence": rf.NODULE, "version": 0},
        format="json",
    )
    assert stale.status_code == 409
    assert stale.json()["current_version"] == 1 and "not saved" in stale.json()["detail"]
    assert Decision.objects.count() == 1


def test_bad_decisions_get_400_with_a_reason(api_client):
    study = rf.make_review_study()
    response = api_client.post(
        f"{base(study)}/decisions/",
        {"action": "accept", "sentence": 1, "version": 0},
        format="json",
    )
    assert response.status_code == 400 and "not flagged" in response.json()["detail"]
    response = api_client.post(
        f"{base(study)}/decisions/", {"action": "delete", "sentence": 1}, format="json"
    )
    assert response.status_code == 400 and {"action", "version"} <= set(response.json())
    assert (
        api_client.post(
            "/api/studies/999999/decisions/",
            {"action": "reject", "sentence": 1, "version": 0},
            format="json",
        ).status_code
        == 404
    )


@pytest.mark.parametrize("version", [2**63, 2**31, -1])
def test_a_version_no_study_can_have_gets_400_not_409(api_client, radiologist_client, version):
    """The version column holds 0 to 2**31 - 1 (PostgreSQL's integer): beyond that a version
    is malformed, not stale."""
    study = rf.make_review_study()
    for what, body in (("decisions", {"action": "reject", "sentence": rf.EFFUSION}),
                       ("decisions/undo", {}),
                       ("signoffs", {"password": factories.PASSWORD, "attested": True})):
        response = api_client.post(f"{base(study)}/{what}/", {**body, "version": version},
                                   format="json")
        assert response.status_code == 400, (what, response.content)
        assert "version" in response.json()
    page = radiologist_client.post(f"/studies/{study.pk}/review/decide/", {
        "action": "reject", "sentence": rf.EFFUSION, "version": version}, HTTP_HX_REQUEST="true")
    assert page.status_code == 422
    assert "The review version is invalid; reload the page." in page.content.decode()
    assert not Decision.objects.exists()


def test_a_malformed_json_body_gets_400_and_records_nothing(api_client):
    study = rf.make_review_study()
    response = api_client.post(f"{base(study)}/decisions/", '{"action": "accept", "sentence": ',
                               content_type="application/json")
    assert response.status_code == 400 and "JSON parse error" in response.json()["detail"]
    assert Decision.objects.count() == 0


def test_undo_sign_list_and_export_every_format(api_client):
    study = rf.make_review_study()
    version = 0
    for index in rf.FLAGGED:
        version = api_client.post(
            f"{base(study)}/decisions/",
            {"action": "reject", "sentence": index, "version": version},
            format="json",
        ).json()["version"]
    undone = api_client.post(f"{base(study)}/decisions/undo/", {"version": version}, format="json")
    assert undone.status_code == 201 and undone.json()["decision"]["undoes"] is not None
    version = undone.json()["version"]
    refused = api_client.post(f"{base(study)}/signoffs/", {"version": version, **ATTESTED},
                              format="json")
    assert refused.status_code == 400 and "1 flag is still open" in refused.json()["detail"]
    version = api_client.post(
        f"{base(study)}/decisions/",
        {
            "action": "edit",
            "sentence": rf.IMPRESSION_EFFUSION,
            "text": "No effusion.",
            "version": version,
        },
        format="json",
    ).json()["version"]
    signed = api_client.post(f"{base(study)}/signoffs/", {"version": version, **ATTESTED},
                              format="json")
    assert signed.status_code == 201
    signoff = signed.json()
    assert signoff["version"] == 1 and "IMPRESSION: No effusion." in signoff["text"]
    assert (
        api_client.get(f"{base(study)}/signoffs/").json()[0]["sha256"]
        == SignOff.objects.get().sha256
    )
    assert api_client.get(f"{base(study)}/signoffs/1/").json()["text"] == signoff["text"]

    text = api_client.get(signoff["exports"]["txt"])
    assert text.status_code == 200 and text.content.decode().startswith(signoff["text"])
    fhir = api_client.get(signoff["exports"]["fhir"], HTTP_ACCEPT="application/fhir+json")
    assert (
        fhir.status_code == 200
        and DiagnosticReport.model_validate_json(fhir.content).status == "final"
    )
    sr = api_client.get(signoff["exports"]["sr"], HTTP_ACCEPT="application/dicom")
    assert sr.status_code == 200 and sr["Content-Type"] == "application/dicom"
    dataset = pydicom.dcmread(io.BytesIO(sr.content))
    texts = [child.TextValue for item in dataset.ContentSequence if item.ValueType == "CONTAINER"
             for child in item.ContentSequence]
    assert texts[-1] == "No effusion. No pneumothorax."
    assert api_client.get(f"{base(study)}/signoffs/1/export/pdf/").status_code == 404
    assert api_client.get(f"{base(study)}/signoffs/2/").status_code == 404


def test_admins_read_and_export_but_cannot_decide_undo_or_sign(admin_api, api_client):
    study = rf.make_review_study()
    assert admin_api.get(f"{base(study)}/review/").status_code == 200
    for path, data in (("decisions/", {"action": "reject", "sentence": rf.EFFUSION, "version": 0}),
                       ("decisions/undo/", {"version": 0}), ("signoffs/", {"version": 0})):
        response = admin_api.post(f"{base(study)}/{path}", data, format="json")
        assert response.status_code == 403, path
    assert not Decision.objects.exists()


def test_the_api_needs_a_login(client):
    study = rf.make_review_study()
    for path in (
        "review/",
        "sentences/",
        "detections/",
        "decisions/",
        "signoffs/",
        "signoffs/1/export/txt/",
    ):
        assert client.get(f"{base(study)}/{path}").status_code in (401, 403), path
    assert client.post(f"{base(study)}/decisions/", {}).status_code in (401, 403)


def test_the_schema_lists_the_review_endpoints(api_client):
    schema = api_client.get("/api/schema/").content.decode()
    for path in (
        "/review/",
        "/sentences/",
        "/detections/",
        "/decisions/",
        "/decisions/undo/",
        "/signoffs/",
        "/signoffs/{version}/export/{fmt}/",
    ):
        assert f"/api/studies/{{id}}{path}" in schema, path
    assert "'409':" in schema or '"409"' in schema


def test_radiologists_decide_through_the_api_as_themselves():
    user = factories.make_user(username="dr-api")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
    study = rf.make_review_study()
    api.post(
        f"{base(study)}/decisions/",
        {"action": "reject", "sentence": rf.EFFUSION, "version": 0},
        format="json",
    )
    assert Decision.objects.get().user == user
