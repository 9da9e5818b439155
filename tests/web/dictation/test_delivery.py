"""A study of images waits for its report; the report arrives by accession number (HL7, FHIR, or
typed on the study page), before or after the images; a new version keeps the decisions made on
the sentences it did not change."""
from __future__ import annotations

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.dictation import listener
from radreview.dictation.models import IncomingReport
from radreview.dictation.services import DeliveryRefused, ReportDelivery, deliver
from radreview.review import services as review
from radreview.review.models import Decision, Detection
from radreview.studies.models import Report, Study
from radreview.studies.services.upload import UploadRequest, create_studies
from tests.support import dicom_factory as dicom
from tests.support.hl7 import FINDINGS, IMPRESSION, fields, oru
from tests.support.inline_pipeline import run_pipeline

pytestmark = pytest.mark.django_db

REPORT = f"{FINDINGS}\n{IMPRESSION}"
# The final report changes one sentence of the preliminary one (the effusion's size).
FINAL = REPORT.replace("There is a small left", "There is a moderate left")


def two_views(accession: str = "ACC-100", patient_id: str = "P-100") -> list[SimpleUploadedFile]:
    uid = f"1.2.826.0.1.3680043.10.77.{abs(hash(accession)) % 10_000}"
    return [SimpleUploadedFile(f"{view}.dcm", dicom.make_dicom(
        study_uid=uid, series_uid=f"{uid}.{n}", sop_uid=f"{uid}.{n}.1", view=view, seed=n,
        rows=64, cols=64, accession=accession, patient_id=patient_id))
        for n, view in enumerate(("PA", "LATERAL"))]


def hl7(text: str = REPORT, *, status: str = "final", message_id: str = "MSG-1",
        accession: str = "ACC-100", patient_id: str = "P-100") -> ReportDelivery:
    return ReportDelivery(channel="hl7", text=text, accession_number=accession,
                          patient_id=patient_id, result_status=status,
                          sender="POWERSCRIBE^HOSPITAL", message_id=message_id)


@pytest.fixture
def awaiting(radiologist) -> Study:
    (study,) = create_studies(user=radiologist, request=UploadRequest(files=two_views()))
    return run_pipeline(study)


def test_images_without_a_report_wait_for_it_instead_of_failing(awaiting, radiologist_client):
    assert awaiting.status == Study.Status.AWAITING_REPORT
    assert [job.stage for job in awaiting.jobs.all()] == ["ingest"]
    worklist = radiologist_client.get("/").content.decode()
    assert "Awaiting report" in worklist
    page = radiologist_client.get(f"/studies/{awaiting.pk}/").content.decode()
    assert 'id="awaiting-report"' in page and "ACC-100" in page
    assert "manage.py" not in page and "Failed" not in page


def test_a_report_for_its_accession_is_attached_and_checked(awaiting):
    delivered = deliver(hl7(status="preliminary"))
    assert delivered.incoming.state == IncomingReport.State.ATTACHED
    assert delivered.incoming.study_id == awaiting.pk
    report = awaiting.reports.get(kind=Report.Kind.UPLOADED)
    assert (report.version, report.result_status, report.source) == (
        1, "preliminary", "hl7:POWERSCRIBE^HOSPITAL")
    assert report.text == REPORT
    study = run_pipeline(awaiting)
    assert study.status == Study.Status.READY
    assert report.sentences.count() == 4
    assert {job.stage for job in study.jobs.all()} >= {"ingest", "parse_report", "combine"}


def test_a_report_sent_again_is_stored_once(awaiting):
    deliver(hl7())
    again = deliver(hl7())
    assert again.replayed and IncomingReport.objects.count() == 1
    assert awaiting.reports.filter(kind=Report.Kind.UPLOADED).count() == 1


def test_a_report_for_another_patient_is_refused_and_nothing_is_stored(awaiting):
    with pytest.raises(DeliveryRefused, match="belongs to another patient ID"):
        deliver(hl7(patient_id="P-999"))
    assert not IncomingReport.objects.exists()
    assert not awaiting.reports.exists()
    assert Study.objects.get(pk=awaiting.pk).status == Study.Status.AWAITING_REPORT


def test_a_report_that_arrives_before_its_images_waits_and_is_attached_with_them(radiologist):
    early = deliver(hl7(status="preliminary", message_id="MSG-P"))
    newer = deliver(hl7(FINAL, status="final", message_id="MSG-F"))
    assert early.waiting and newer.waiting
    (study,) = create_studies(user=radiologist, request=UploadRequest(files=two_views()))
    report = study.reports.get(kind=Report.Kind.UPLOADED)
    assert (report.text, report.result_status) == (FINAL, "final")  # the newest waiting one
    states = dict(IncomingReport.objects.values_list("message_id", "state"))
    assert states == {"MSG-P": IncomingReport.State.SUPERSEDED,
                      "MSG-F": IncomingReport.State.ATTACHED}
    assert run_pipeline(study).status == Study.Status.READY


def test_a_waiting_report_for_another_patient_is_not_taken(radiologist):
    deliver(hl7(patient_id="P-OTHER"))
    (study,) = create_studies(user=radiologist, request=UploadRequest(files=two_views()))
    assert not study.reports.exists()
    assert IncomingReport.objects.get().state == IncomingReport.State.WAITING


def _flagged_sentence(report: Report) -> int:
    return (Detection.objects.filter(report=report, detector=Detection.COMBINED, flagged=True)
            .values_list("sentence_index", flat=True).order_by("sentence_index").first())


def test_a_final_after_the_preliminary_is_a_new_version_keeping_unchanged_decisions(
        awaiting, radiologist):
    deliver(hl7(status="preliminary", message_id="MSG-P"))
    study = run_pipeline(awaiting)
    preliminary = study.reports.get(kind=Report.Kind.UPLOADED)
    # The radiologist corrects two sentences of the preliminary report: one the final keeps
    # (the impression), one the final changes (the effusion's size).
    for index, text in ((1, "There is a tiny left pleural effusion."),
                        (3, "IMPRESSION: Tiny left pleural effusion.")):
        review.decide(study, radiologist, action="edit", sentence_index=index,
                      version=Study.objects.get(pk=study.pk).review_version, text=text)

    delivered = deliver(hl7(FINAL, status="final", message_id="MSG-F"))
    assert delivered.incoming.state == IncomingReport.State.ATTACHED
    preliminary.refresh_from_db()
    assert preliminary.kind == Report.Kind.SUPERSEDED
    final = study.reports.get(kind=Report.Kind.UPLOADED)
    assert (final.version, final.result_status) == (2, "final")
    study = run_pipeline(study)
    assert study.status == Study.Status.READY

    carried = Decision.objects.filter(sentence__report=final)
    assert [(d.sentence.index, d.action, d.after_text, d.user) for d in carried] == [
        (3, "edit", "IMPRESSION: Tiny left pleural effusion.", radiologist)]
    # The changed sentence waits for a decision of its own; the old decisions stay history.
    assert Decision.objects.filter(sentence__report=preliminary).count() == 2
    assert study.audit_events.filter(action="decisions_carried_forward").count() == 1


def test_a_final_identical_to_the_preliminary_changes_nothing(awaiting):
    deliver(hl7(status="preliminary", message_id="MSG-P"))
    run_pipeline(awaiting)
    delivered = deliver(hl7(status="final", message_id="MSG-F"))
    assert delivered.incoming.state == IncomingReport.State.UNCHANGED
    assert awaiting.reports.filter(kind__in=("uploaded", "superseded")).count() == 1
    assert Study.objects.get(pk=awaiting.pk).status == Study.Status.READY


def _fhir(text: str = REPORT, *, accession: str | None = "ACC-100", status: str = "final",
          resource_id: str = "dr-1") -> dict:
    resource = {
        "resourceType": "DiagnosticReport", "id": resource_id, "status": status,
        "code": {"text": "XR Chest"}, "subject": {"identifier": {"value": "P-100"}},
        "presentedForm": [{"contentType": "text/plain",
                           "data": base64.b64encode(text.encode()).decode()}],
    }
    if accession:
        resource["identifier"] = [{"type": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "ACSN"}]},
            "value": accession}]
    return resource


def test_a_fhir_diagnostic_report_is_attached_by_its_accession(awaiting, api_client):
    answer = api_client.post("/api/fhir/DiagnosticReport", _fhir(), format="json")
    assert answer.status_code == 201, answer.content
    assert answer["Content-Type"] == "application/fhir+json"
    assert answer.json()["resourceType"] == "OperationOutcome"
    assert answer["Location"] == f"/studies/{awaiting.pk}/"
    report = awaiting.reports.get(kind=Report.Kind.UPLOADED)
    assert (report.text, report.source) == (REPORT, "fhir:" + answer.wsgi_request.user.username)
    again = api_client.post("/api/fhir/DiagnosticReport", _fhir(), format="json")
    assert again.status_code == 200


@pytest.mark.parametrize("resource, words", [
    (_fhir(accession=None), "No accession number"),
    (_fhir(status="registered"), "status 'registered'"),
    ({"resourceType": "Patient"}, "Expected a FHIR DiagnosticReport"),
    ({"resourceType": "DiagnosticReport", "status": "final"}, "Not a valid R4"),
])
def test_a_fhir_report_we_cannot_match_is_refused_with_the_reason(awaiting, api_client,
                                                                 resource, words):
    answer = api_client.post("/api/fhir/DiagnosticReport", resource, format="json")
    assert answer.status_code == 422, answer.content
    assert words in answer.json()["issue"][0]["diagnostics"]
    assert not IncomingReport.objects.exists()


def test_a_report_typed_on_the_study_page_is_attached(awaiting, radiologist_client):
    answer = radiologist_client.post(f"/studies/{awaiting.pk}/report/", {"report_text": REPORT})
    assert answer.status_code == 302
    report = awaiting.reports.get(kind=Report.Kind.UPLOADED)
    assert report.source.startswith("typed:") and report.text == REPORT
    assert run_pipeline(awaiting).status == Study.Status.READY


def test_only_a_radiologist_types_a_report(awaiting, admin_client_):
    answer = admin_client_.post(f"/studies/{awaiting.pk}/report/", {"report_text": REPORT})
    assert answer.status_code == 403
    assert not awaiting.reports.exists()


def test_only_the_allowed_sending_applications_deliver_over_hl7(awaiting, settings):
    settings.HL7_ALLOWED_SENDERS = ["RIS"]
    refused = listener.answer(oru(accession="ACC-100", sender="POWERSCRIBE"))
    assert fields(refused, "MSA")[1:3] == ["AR", "MSG-1"]
    assert "POWERSCRIBE is not allowed" in fields(refused, "ERR")[8]
    assert not awaiting.reports.exists()
    accepted = listener.answer(oru(accession="ACC-100", sender="RIS"))
    assert fields(accepted, "MSA")[1] == "AA"
    assert awaiting.reports.filter(kind=Report.Kind.UPLOADED).exists()
