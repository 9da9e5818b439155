"""Exports of a signed version: plain text, FHIR R4 DiagnosticReport, DICOM Comprehensive SR.

Each builder turns an immutable ``SignOff`` into bytes. The same signed version always gives
the same identifiers (the SR's SOP Instance UID and the FHIR resource id are derived from the
study and the version), so exporting it twice describes one document, not two.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone

from radreview.studies.age import dicom_age, display_age
from radreview.studies.models import Image, Study
from radreview.studies.names import display_name

from .models import SignOff

# A study without DICOM images (a report and PNG/JPEG views) has no StudyInstanceUID of its
# own; its exports use one derived from the site and the study id, stable across versions.
UID_ROOT_SOURCE = "radreview-study"
DX_FOR_PRESENTATION = "1.2.840.10008.5.1.4.1.1.1.1"
COMPREHENSIVE_SR = "1.2.840.10008.5.1.4.1.1.88.33"
# What was imaged, as LOINC names it: one view or two views of the chest; a study holding no
# image (a report alone) or more views gets the general code, which claims no projection.
LOINC_CHEST_XR_BY_VIEWS = {1: ("36554-4", "XR Chest Single View"),
                           2: ("36643-5", "XR Chest 2 Views")}
LOINC_IMAGING_STUDY = ("18748-4", "Diagnostic imaging study")
SR_SERIES_NUMBER = 900
ORGANIZATION = getattr(settings, "RADREVIEW_ORGANIZATION", "RadReview")
AGE_EXTENSION = "urn:radreview:patient-age-at-study"
RADIOLOGIST_CODE = ("66862007", "SCT", "Radiologist")


def study_uid(study: Study) -> str:
    from pydicom.uid import generate_uid  # noqa: PLC0415 - defer pydicom

    if study.study_instance_uid:
        return study.study_instance_uid
    return str(
        generate_uid(entropy_srcs=[UID_ROOT_SOURCE, settings.SECRET_KEY[:16], str(study.pk)])
    )


def procedure_code(study: Study) -> tuple[str, str]:
    """The LOINC code and display of what the study holds (its images are its views)."""
    return LOINC_CHEST_XR_BY_VIEWS.get(study.images.count(), LOINC_IMAGING_STUDY)


def signer_name(signoff: SignOff) -> str:
    """The signer's full name as recorded at signing (older versions: the account's name)."""
    return (signoff.signer_name or signoff.signer.get_full_name()
            or signoff.signer.get_username())


def signer_role(signoff: SignOff) -> str:
    return signoff.signer_role or signoff.signer.get_role_display()


def signed_by(signoff: SignOff) -> str:
    """"Dr Jane Roe, Radiologist"."""
    return f"{signer_name(signoff)}, {signer_role(signoff)}"


def impression(signoff: SignOff) -> str:
    return " ".join(s["text"] for s in signoff.sections if s.get("name") == "impression").strip()


def _local(signoff: SignOff):
    return timezone.localtime(signoff.signed_at)


# --- plain text ------------------------------------------------------------------------------


def build_text(signoff: SignOff) -> bytes:
    """Who the report is about (as far as the study knows), the signed text, the signature."""
    study = signoff.study
    patient = (f"Patient: {display_name(study.patient_name)}\n" if study.patient_name else "") \
        + (f"Patient ID: {study.patient_id}\n" if study.patient_id else "")
    signed = _local(signoff)
    age = display_age(study)
    footer = (
        (f"Patient age at the study: {age}.\n" if age else "")
        + f"--\nSigned by {signed_by(signoff)} on {signed:%Y-%m-%d %H:%M %Z} "
        f"(RadReview study {signoff.study_id}, version {signoff.version}).\n"
        + (f"Attestation: {signoff.attestation}\n" if signoff.attestation else "")
        + f"SHA-256 of the report text: {signoff.sha256}\n"
    )
    header = patient + "\n" if patient else ""
    return (header + signoff.report.text.rstrip() + "\n\n" + footer).encode("utf-8")


# --- FHIR ------------------------------------------------------------------------------------


def _display_name(dicom_name: str) -> str:
    """"Family^Given^Middle" (DICOM) as "Given Middle Family"."""
    parts = [p.strip() for p in (dicom_name or "").split("^")]
    family, rest = (parts[0], parts[1:3]) if parts else ("", [])
    return " ".join(p for p in (*rest, family) if p)


def fhir_resource(signoff: SignOff):
    """The signed version as a validated ``fhir.resources`` R4 (R4B model) DiagnosticReport."""
    from fhir.resources.R4B.diagnosticreport import DiagnosticReport  # noqa: PLC0415 - defer fhir

    study = signoff.study
    text = signoff.report.text.encode("utf-8")
    code, display = procedure_code(study)
    uid_identifier = {"system": "urn:dicom:uid", "value": f"urn:oid:{study_uid(study)}"}
    identifiers = [
        {**uid_identifier, "type": {"text": "Study Instance UID"}},
        {"system": "urn:radreview:signed-report", "value": f"{study.pk}-v{signoff.version}"},
    ]
    if study.accession_number:
        identifiers.append(
            {
                "type": {
                    "coding": [
                        {"system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "ACSN"}
                    ]
                },
                "value": study.accession_number,
            }
        )
    subject = {"display": _display_name(study.patient_name) or "Unknown patient"}
    if study.patient_id:
        subject["identifier"] = {"value": study.patient_id}
    data = {
        "resourceType": "DiagnosticReport",
        "id": f"radreview-{study.pk}-v{signoff.version}",
        "identifier": identifiers,
        # A later version replaces a final one: FHIR calls that "amended".
        "status": "final" if signoff.version == 1 else "amended",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/v2-0074",
                        "code": "RAD",
                        "display": "Radiology",
                    }
                ]
            }
        ],
        "code": {
            "coding": [{"system": "http://loinc.org", "code": code, "display": display}],
            "text": study.description or "Chest X-ray",
        },
        "subject": subject,
        "issued": signoff.signed_at.isoformat(),
        "resultsInterpreter": [{"display": signed_by(signoff)}],
        "imagingStudy": [{"type": "ImagingStudy", "identifier": uid_identifier}],
        "presentedForm": [
            {
                "contentType": "text/plain; charset=utf-8",
                "language": "en",
                "data": base64.b64encode(text).decode("ascii"),
                "hash": base64.b64encode(hashlib.sha1(text).digest()).decode("ascii"),
                "title": f"Signed report, version {signoff.version}",
                "creation": signoff.signed_at.isoformat(),
            }
        ],
    }
    if study.study_date:
        data["effectiveDateTime"] = study.study_date.isoformat()
    age = display_age(study)
    if age:
        # DiagnosticReport has no age element: the patient's age at the study is a note.
        data["extension"] = [{"url": AGE_EXTENSION, "valueString": age}]
    conclusion = impression(signoff)
    if conclusion:
        data["conclusion"] = conclusion
    return DiagnosticReport.model_validate(data)


def build_fhir(signoff: SignOff) -> bytes:
    resource = fhir_resource(signoff)
    return json.dumps(json.loads(resource.model_dump_json(exclude_none=True)), indent=2,
                      ensure_ascii=False).encode("utf-8")


# --- DICOM SR --------------------------------------------------------------------------------

# Report sections as TID 2000 headings (CID 7001) and the text item each holds (CID 7002).
SECTION_CODES = {
    "findings": ("Findings", "Finding"),
    "impression": ("Impressions", "Impression"),
    "indication": ("IndicationsForProcedure", "Comment"),
    "history": ("History", "Comment"),
    "comparison": ("PriorProcedureDescriptions", "Comment"),
    "technique": ("CurrentProcedureDescriptions", "ProcedureDescription"),
}
DEFAULT_SECTION_CODE = ("Summary", "Comment")


def _dicom_name(name: str) -> str:
    """"Given Family" as DICOM's "Family^Given"; a single word (a login) as "word^"."""
    parts = name.split()
    return f"{parts[-1]}^{' '.join(parts[:-1])}" if len(parts) > 1 else f"{name}^"


def _dicom_sex(sex: str) -> str:
    value = (sex or "").strip().upper()[:1]
    return value if value in ("M", "F", "O") else ""


def _patient_and_study(study: Study, uid: str):
    from pydicom.dataset import Dataset  # noqa: PLC0415 - defer pydicom

    ds = Dataset()
    ds.StudyInstanceUID = uid
    ds.PatientName = study.patient_name or ""
    ds.PatientID = study.patient_id or ""
    ds.PatientBirthDate = (study.patient_birth_date.strftime("%Y%m%d")
                           if study.patient_birth_date else "")
    ds.PatientSex = _dicom_sex(study.patient_sex)
    if dicom_age(study):
        ds.PatientAge = dicom_age(study)
    ds.AccessionNumber = study.accession_number[:16] if study.accession_number else ""
    ds.StudyID = ""
    ds.StudyDate = study.study_date.strftime("%Y%m%d") if study.study_date else ""
    ds.StudyTime = ""
    ds.ReferringPhysicianName = ""
    if study.description:
        ds.StudyDescription = study.description[:64]
    return ds


def _evidence(study: Study, uid: str) -> tuple[list, bool]:
    """Datasets standing for the study's DICOM images (True), or one for the study alone."""
    images = [i for i in study.images.all() if i.kind == Image.Kind.DICOM and i.sop_instance_uid]
    evidence = []
    for image in images:
        ds = _patient_and_study(study, uid)
        ds.SOPClassUID = (image.metadata or {}).get("sop_class_uid") or DX_FOR_PRESENTATION
        ds.SOPInstanceUID = image.sop_instance_uid
        ds.SeriesInstanceUID = image.series_instance_uid or (image.metadata or {}).get(
            "series_instance_uid", ""
        )
        ds.Modality = (image.metadata or {}).get("modality") or "DX"
        evidence.append(ds)
    if evidence:
        return evidence, True
    from pydicom.uid import generate_uid  # noqa: PLC0415 - defer pydicom

    placeholder = _patient_and_study(study, uid)
    placeholder.SOPClassUID = DX_FOR_PRESENTATION
    placeholder.SOPInstanceUID = generate_uid(entropy_srcs=[uid, "placeholder"])
    placeholder.SeriesInstanceUID = generate_uid(entropy_srcs=[uid, "placeholder-series"])
    return [placeholder], False


def sr_uids(uid: str, version: int) -> tuple[str, str]:
    """(series, SOP instance) UIDs of a signed version's SR: the same on every export."""
    from pydicom.uid import generate_uid  # noqa: PLC0415 - defer pydicom

    series = generate_uid(entropy_srcs=[uid, "radreview-sr-series"])
    instance = generate_uid(entropy_srcs=[uid, "radreview-sr", str(version)])
    return str(series), str(instance)


def _role_code(signoff: SignOff):
    import highdicom as hd  # noqa: PLC0415 - highdicom is slow to load; only SR exports need it

    return hd.sr.CodedConcept(*RADIOLOGIST_CODE) if signer_role(signoff) == "Radiologist" else None


def _signature_line(signoff: SignOff) -> str:
    line = f"Signed by {signed_by(signoff)}."
    return f"{line} {signoff.attestation}" if signoff.attestation else line


def sr_dataset(signoff: SignOff):
    import highdicom as hd  # noqa: PLC0415 - defer highdicom
    from pydicom.dataset import Dataset  # noqa: PLC0415 - defer pydicom
    from pydicom.sr.codedict import codes  # noqa: PLC0415 - defer pydicom
    from pydicom.valuerep import DT  # noqa: PLC0415 - defer pydicom

    study = signoff.study
    uid = study_uid(study)
    series_uid, instance_uid = sr_uids(uid, signoff.version)
    evidence, real_evidence = _evidence(study, uid)
    code, display = procedure_code(study)

    root = hd.sr.ContainerContentItem(name=codes.LN.DiagnosticImagingReport, template_id="2000")
    items = hd.sr.ContentSequence(is_root=False)
    items.extend(hd.sr.LanguageOfContentItemAndDescendants(
        language=hd.sr.CodedConcept("en-US", "RFC5646", "English (United States)")))
    items.extend(hd.sr.ObserverContext(
        observer_type=codes.DCM.Person,
        observer_identifying_attributes=hd.sr.PersonObserverIdentifyingAttributes(
            name=_dicom_name(signer_name(signoff)), login_name=signoff.signer.get_username(),
            organization_name=ORGANIZATION, role_in_organization=_role_code(signoff)),
    ))
    items.append(hd.sr.CodeContentItem(
        name=codes.DCM.ProcedureReported,
        value=hd.sr.CodedConcept(code, "LN", display),
        relationship_type=hd.sr.RelationshipTypeValues.HAS_CONCEPT_MOD,
    ))
    for section in signoff.sections:
        heading, element = SECTION_CODES.get(section["name"], DEFAULT_SECTION_CODE)
        container = hd.sr.ContainerContentItem(
            name=getattr(codes.DCM, heading),
            relationship_type=hd.sr.RelationshipTypeValues.CONTAINS,
        )
        container.ContentSequence = hd.sr.ContentSequence([hd.sr.TextContentItem(
            name=getattr(codes.DCM, element), value=section["text"],
            relationship_type=hd.sr.RelationshipTypeValues.CONTAINS,
        )])
        items.append(container)
    items.append(hd.sr.TextContentItem(
        name=codes.DCM.Comment, value=_signature_line(signoff),
        relationship_type=hd.sr.RelationshipTypeValues.CONTAINS))
    root.ContentSequence = items

    previous = []
    for version in range(1, signoff.version):
        before = Dataset()
        before.SOPClassUID = COMPREHENSIVE_SR
        before.StudyInstanceUID = uid
        before.SeriesInstanceUID, before.SOPInstanceUID = sr_uids(uid, version)
        previous.append(before)

    sr = hd.sr.ComprehensiveSR(
        evidence=evidence,
        content=root,
        series_instance_uid=series_uid,
        series_number=SR_SERIES_NUMBER,
        sop_instance_uid=instance_uid,
        instance_number=signoff.version,
        manufacturer="RadReview",
        is_complete=True,
        is_final=True,
        is_verified=True,
        verifying_observer_name=_dicom_name(signer_name(signoff)),
        verifying_organization=ORGANIZATION,
        previous_versions=previous or None,
        series_description="Signed report (RadReview)",
    )
    if not real_evidence:
        # The study has no DICOM instances to point at: keep the patient and study, drop the
        # placeholder reference.
        for keyword in (
            "CurrentRequestedProcedureEvidenceSequence",
            "PertinentOtherEvidenceSequence",
        ):
            if keyword in sr:
                delattr(sr, keyword)
    signed = _local(signoff)
    sr.ContentDate, sr.ContentTime = signed.strftime("%Y%m%d"), signed.strftime("%H%M%S")
    sr.VerifyingObserverSequence[0].VerificationDateTime = DT(signed)
    return sr


def build_sr(signoff: SignOff) -> bytes:
    buffer = io.BytesIO()
    sr_dataset(signoff).save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


@dataclass(frozen=True)
class Builder:
    build: Callable[[SignOff], bytes]
    extension: str
    media_type: str
    label: str

    def filename(self, signoff: SignOff) -> str:
        return f"study-{signoff.study_id}-v{signoff.version}.{self.extension}"


BUILDERS: dict[str, Builder] = {
    "txt": Builder(build_text, "txt", "text/plain; charset=utf-8", "Plain text"),
    "fhir": Builder(build_fhir, "fhir.json", "application/fhir+json", "FHIR R4 DiagnosticReport"),
    "sr": Builder(build_sr, "dcm", "application/dicom", "DICOM SR"),
}
