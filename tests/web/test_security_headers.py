"""No patient data in any cache, and a Content-Security-Policy that allows no inline script."""
import re
from pathlib import Path

import pytest
from django.conf import settings

from radreview.review import services
from radreview.studies.models import Study
from tests import factories
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db
TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@pytest.fixture
def signed_study(radiologist):
    study = rf.make_review_study(dicom=True)
    for index in rf.FLAGGED:
        services.decide(study, radiologist, action="reject", sentence_index=index,
                        version=Study.objects.get(pk=study.pk).review_version)
    services.sign(study, radiologist, version=Study.objects.get(pk=study.pk).review_version,
                  password=factories.PASSWORD, attested=True)
    return study


def test_every_response_with_patient_data_says_no_store(radiologist_client, api_client,
                                                         signed_study):
    study, image = signed_study, signed_study.images.first()
    pages = [
        f"/studies/{study.pk}/", "/", f"/studies/{study.pk}/jobs/", f"/studies/{study.pk}/audit/",
        f"/studies/{study.pk}/signed/1/", f"/studies/{study.pk}/images/{image.pk}/preview.png",
        f"/studies/{study.pk}/images/{image.pk}/thumbnail.png",
        f"/studies/{study.pk}/signed/1/export/txt/", f"/studies/{study.pk}/signed/1/export/sr/",
    ]
    for path in pages:
        response = radiologist_client.get(path)
        assert response.status_code == 200, path
        assert response["Cache-Control"] == "no-store", path
    poll = radiologist_client.get(f"/studies/{study.pk}/review/poll/", {"version": 0},
                                  HTTP_HX_REQUEST="true")
    assert poll["Cache-Control"] == "no-store"
    for path in (f"/api/studies/{study.pk}/", f"/api/studies/{study.pk}/review/", "/api/studies/",
                 f"/api/studies/{study.pk}/signoffs/1/export/fhir/"):
        response = api_client.get(path)
        assert response.status_code == 200 and response["Cache-Control"] == "no-store", path


def test_static_files_stay_cacheable(client):
    response = client.get("/static/js/radreview.js")
    assert response.status_code == 200 and "no-store" not in response.get("Cache-Control", "")


def test_the_policy_allows_scripts_only_from_our_own_files(radiologist_client):
    policy = radiologist_client.get("/")["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert "unsafe-inline" not in directives["script-src"]
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert directives["worker-src"] == "'self' blob:"
    # One settings value holds the whole policy.
    assert settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["script-src"] == [
        "'self'", "'wasm-unsafe-eval'"]


def test_no_template_has_an_inline_script_or_event_handler():
    offending = []
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        if re.search(r"<script(?![^>]*\bsrc=)[^>]*>", text) or re.search(r"\son[a-z]+\s*=", text) \
                or "hx-on" in text or "javascript:" in text:
            offending.append(template.name)
    assert offending == []
