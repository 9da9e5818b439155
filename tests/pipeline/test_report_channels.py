"""A study waiting for its report gets it through the web server too, with real processes: a
FHIR DiagnosticReport posted with an API token, and a report typed on the study page in a
signed-in session; a worker checks it either way (issue 30; the HL7 channel is in
test_radiologists_day.py).

Marked ``pipeline``: scripts/test.sh runs it on SQLite and again on PostgreSQL + Redis.
"""
from __future__ import annotations

import base64
import re

import pytest
import requests
from django.core.files.uploadedfile import SimpleUploadedFile
from knox.models import AuthToken

from radreview.studies.models import Report, Study
from radreview.studies.services.upload import UploadRequest, create_studies
from tests.factories import PASSWORD
from tests.support import dicom_factory as dicom
from tests.support.hl7 import FINDINGS, IMPRESSION
from tests.support.process_groups import stop_all
from tests.support.webserver import WebServer
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

REPORT = f"{FINDINGS}\n{IMPRESSION}"
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


@pytest.fixture
def site():
    server, worker = WebServer(workers=1), WorkerProcess()
    try:
        server.start()
        worker.start()
        yield server
    finally:
        stop_all(worker, server)


def awaiting(user, accession: str) -> Study:
    uid = f"1.2.826.0.1.3680043.10.500.{len(accession)}{ord(accession[-1])}"
    files = [SimpleUploadedFile("pa.dcm", dicom.make_dicom(
        study_uid=uid, rows=64, cols=64, accession=accession, patient_id="P-500"))]
    (study,) = create_studies(user=user, request=UploadRequest(files=files))
    return study


def reached(study: Study, status: str) -> None:
    def check():
        study.refresh_from_db()
        return study.status == status
    wait_for(check, timeout=120, message=f"study {study.pk} {status}")


def test_a_fhir_diagnostic_report_reaches_the_waiting_study(site, radiologist):
    study = awaiting(radiologist, "ACC-501")
    reached(study, Study.Status.AWAITING_REPORT)
    resource = {
        "resourceType": "DiagnosticReport", "id": "ris-501", "status": "final",
        "code": {"text": "XR Chest"}, "subject": {"identifier": {"value": "P-500"}},
        "identifier": [{"type": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "ACSN"}]},
            "value": "ACC-501"}],
        "presentedForm": [{"contentType": "text/plain",
                           "data": base64.b64encode(REPORT.encode()).decode()}],
    }
    token = AuthToken.objects.create(radiologist)[1]
    answer = requests.post(f"{site.url}/api/fhir/DiagnosticReport", json=resource, timeout=60,
                           headers={"Authorization": f"Token {token}",
                                    "Content-Type": "application/fhir+json"})
    assert answer.status_code == 201, answer.text
    assert answer.json()["resourceType"] == "OperationOutcome"
    reached(study, Study.Status.READY)
    assert study.reports.get(kind=Report.Kind.UPLOADED).text == REPORT


def test_a_report_typed_on_the_study_page_reaches_the_waiting_study(site, radiologist):
    study = awaiting(radiologist, "ACC-502")
    reached(study, Study.Status.AWAITING_REPORT)
    browser = requests.Session()
    login = browser.get(f"{site.url}/accounts/login/", timeout=60)
    browser.post(f"{site.url}/accounts/login/", timeout=60, data={
        "username": radiologist.username, "password": PASSWORD,
        "csrfmiddlewaretoken": CSRF.search(login.text).group(1)})
    page = browser.get(f"{site.url}/studies/{study.pk}/", timeout=60)
    assert 'id="awaiting-report"' in page.text
    answer = browser.post(f"{site.url}/studies/{study.pk}/report/", timeout=60,
                          allow_redirects=False,
                          data={"report_text": REPORT,
                                "csrfmiddlewaretoken": CSRF.search(page.text).group(1)},
                          headers={"Referer": f"{site.url}/studies/{study.pk}/"})
    assert answer.status_code == 302, answer.text[:300]
    reached(study, Study.Status.READY)
    report = study.reports.get(kind=Report.Kind.UPLOADED)
    assert report.text == REPORT and report.source == f"typed:{radiologist.username}"
