"""Exports of a signed version, parsed back with the libraries that define their formats."""
import base64
import hashlib
import io
import json

import pydicom
import pytest
from fhir.resources.R4B.diagnosticreport import DiagnosticReport

from radreview.review import exports, services
from radreview.studies.models import Study
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db

SIGNED_FINDINGS = (
    "The heart size is normal. There is no left pleural effusion. "
    "The endotracheal tube tip is 3 cm "
    "above the carina. The lungs are otherwise clear. Unchanged from prior."
)


def signed(user, *, dicom=True, edit_after=False):
    study = rf.make_review_study(dicom=dicom)

    def decide(action, index, **kw):
        version = Study.objects.get(pk=study.pk).review_version
        services.decide(study, user, action=action, sentence_index=index, version=version, **kw)

    decide("accept", rf.EFFUSION)
    decide("accept", rf.NODULE)
    decide("reject", rf.UNCHANGED)
    decide("accept", rf.IMPRESSION_EFFUSION)
    signoff = services.sign(study, user, version=Study.objects.get(pk=study.pk).review_version,
                            password=PASSWORD, attested=True).signoff
    if edit_after:
        decide("edit", 1, text="The heart is mildly enlarged.")
        signoff = services.sign(study, user, version=Study.objects.get(pk=study.pk).review_version,
                                password=PASSWORD, attested=True).signoff
    return study, signoff


def sr_text_items(dataset):
    """(section heading, text) pairs of the SR content tree."""
    pairs = []
    for item in dataset.ContentSequence:
        if item.ValueType == "CONTAINER":
            for child in item.ContentSequence:
                if child.ValueType == "TEXT":
                    pairs.append((item.ConceptNameCodeSequence[0].CodeMeaning, child.TextValue))
    return pairs


def test_plain_text_is_the_patient_the_signed_text_and_a_signature(radiologist):
    _, signoff = signed(radiologist)
    content, filename, media_type = services.export(signoff, "txt", radiologist)
    text = content.decode("utf-8")
    assert text.startswith("Patient: Doe, Jane\nPatient ID: P-0042\n\n" + signoff.report.text
                           + "\n\n--\nSigned by " + radiologist.username)
    assert signoff.sha256 in text
    assert filename.endswith("-v1.txt") and media_type.startswith("text/plain")


def test_the_text_of_a_study_without_patient_details_starts_with_the_report(radiologist):
    study, signoff = signed(radiologist, dicom=False)
    assert not study.patient_name and not study.patient_id
    text = services.export(signoff, "txt", radiologist)[0].decode("utf-8")
    assert text.startswith(signoff.report.text + "\n\n--\nSigned by ")


def test_fhir_diagnostic_report_validates_and_carries_the_report(radiologist):
    study, signoff = signed(radiologist)
    content, _, media_type = services.export(signoff, "fhir", radiologist)
    assert media_type == "application/fhir+json"
    report = DiagnosticReport.model_validate_json(content)
    assert report.status == "final"
    assert (
        report.code.coding[0].system == "http://loinc.org"
        and report.code.coding[0].code == "36643-5"
    )
    assert report.subject.display == "Jane Doe" and report.subject.identifier.value == "P-0042"
    assert report.conclusion == "No pleural effusion. No pneumothorax."
    assert {i.value for i in report.identifier} >= {f"urn:oid:{rf.STUDY_UID}", "ACC-7"}
    assert report.imagingStudy[0].identifier.value == f"urn:oid:{rf.STUDY_UID}"
    form = report.presentedForm[0]  # fhir.resources decodes base64Binary to bytes
    assert form.data.decode("utf-8") == signoff.report.text
    assert form.hash == hashlib.sha1(signoff.report.text.encode()).digest()
    raw_form = json.loads(content)["presentedForm"][0]
    assert base64.b64decode(raw_form["data"]).decode("utf-8") == signoff.report.text
    assert str(report.effectiveDateTime) == "2026-03-04"
    assert json.loads(content)["resourceType"] == "DiagnosticReport"


@pytest.mark.parametrize("images, code, display", [
    (2, "36643-5", "XR Chest 2 Views"),
    (1, "36554-4", "XR Chest Single View"),
    (0, "18748-4", "Diagnostic imaging study"),
])
def test_the_fhir_and_sr_procedure_code_says_what_the_study_holds(radiologist, images, code,
                                                                  display):
    """A report-only study (no images) is not "XR Chest 2 Views": the general imaging code."""
    study, signoff = signed(radiologist)
    for image in study.images.order_by("-position")[:2 - images]:
        image.delete()
    report = DiagnosticReport.model_validate_json(services.export(signoff, "fhir", radiologist)[0])
    coding = report.code.coding[0]
    assert (coding.system, coding.code, coding.display) == ("http://loinc.org", code, display)
    sr = pydicom.dcmread(io.BytesIO(services.export(signoff, "sr", radiologist)[0]))
    [procedure] = [item for item in sr.ContentSequence
                   if item.ConceptNameCodeSequence[0].CodeMeaning == "Procedure reported"]
    assert procedure.ConceptCodeSequence[0].CodeValue == code


def test_a_later_version_is_an_amended_fhir_report(radiologist):
    _, signoff = signed(radiologist, edit_after=True)
    report = DiagnosticReport.model_validate_json(services.export(signoff, "fhir", radiologist)[0])
    assert report.status == "amended" and report.id.endswith("-v2")
    assert "mildly enlarged" in report.presentedForm[0].data.decode()


def test_dicom_sr_references_the_study_and_its_images(radiologist):
    study, signoff = signed(radiologist)
    content, filename, media_type = services.export(signoff, "sr", radiologist)
    assert media_type == "application/dicom" and filename.endswith(".dcm")
    ds = pydicom.dcmread(io.BytesIO(content))
    assert ds.SOPClassUID == exports.COMPREHENSIVE_SR and ds.Modality == "SR"
    assert ds.StudyInstanceUID == rf.STUDY_UID
    assert (str(ds.PatientName), ds.PatientID, ds.PatientSex, ds.AccessionNumber) == (
        "Doe^Jane",
        "P-0042",
        "F",
        "ACC-7",
    )
    evidence = ds.CurrentRequestedProcedureEvidenceSequence[0]
    assert evidence.StudyInstanceUID == rf.STUDY_UID
    series = evidence.ReferencedSeriesSequence[0]
    assert series.SeriesInstanceUID == rf.SERIES_UID
    assert [r.ReferencedSOPInstanceUID for r in series.ReferencedSOPSequence] == list(rf.SOP_UIDS)
    assert (ds.CompletionFlag, ds.VerificationFlag, ds.PreliminaryFlag) == (
        "COMPLETE",
        "VERIFIED",
        "FINAL",
    )
    assert ds.ConceptNameCodeSequence[0].CodeValue == "18748-4"
    assert sr_text_items(ds) == [
        ("Indications for Procedure", "Cough and fever."),
        ("Findings", SIGNED_FINDINGS),
        ("Impressions", "No pleural effusion. No pneumothorax."),
    ]


def test_the_same_version_always_exports_the_same_sr_instance(radiologist):
    _, signoff = signed(radiologist)
    first = pydicom.dcmread(io.BytesIO(services.export(signoff, "sr", radiologist)[0]))
    again = pydicom.dcmread(io.BytesIO(services.export(signoff, "sr", radiologist)[0]))
    assert (
        first.SOPInstanceUID == again.SOPInstanceUID
        and first.SeriesInstanceUID == again.SeriesInstanceUID
    )


def test_a_later_sr_version_names_its_predecessor(radiologist):
    study, signoff = signed(radiologist, edit_after=True)
    ds = pydicom.dcmread(io.BytesIO(services.export(signoff, "sr", radiologist)[0]))
    first_uid = exports.sr_uids(rf.STUDY_UID, 1)[1]
    predecessor = (
        ds.PredecessorDocumentsSequence[0].ReferencedSeriesSequence[0].ReferencedSOPSequence[0]
    )
    assert predecessor.ReferencedSOPInstanceUID == first_uid != ds.SOPInstanceUID
    assert ds.InstanceNumber == 2
    assert (
        "Findings",
        SIGNED_FINDINGS.replace("The heart size is normal.", "The heart is mildly enlarged."),
    ) in sr_text_items(ds)


def test_a_study_without_dicom_gets_a_stable_derived_uid_and_no_image_references(radiologist):
    study, signoff = signed(radiologist, dicom=False)
    ds = pydicom.dcmread(io.BytesIO(services.export(signoff, "sr", radiologist)[0]))
    assert ds.StudyInstanceUID == exports.study_uid(study) and ds.StudyInstanceUID.startswith(
        "1.2."
    )
    assert "CurrentRequestedProcedureEvidenceSequence" not in ds
    report = DiagnosticReport.model_validate_json(services.export(signoff, "fhir", radiologist)[0])
    assert report.imagingStudy[0].identifier.value == f"urn:oid:{ds.StudyInstanceUID}"
    assert report.subject.display == "Unknown patient"


def test_unknown_formats_are_refused(radiologist):
    _, signoff = signed(radiologist)
    with pytest.raises(services.ReviewError, match="Unknown export format"):
        services.export(signoff, "pdf", radiologist)
