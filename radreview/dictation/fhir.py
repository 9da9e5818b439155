"""A FHIR R4 DiagnosticReport posted by the RIS or the dictation system, read into a
``ReportDelivery`` (the same resource RadReview exports for a signed report: review/exports.py).

Matched by its accession identifier (``identifier`` whose type is v2-0203 ``ACSN``), the
patient by ``subject.identifier``; the text from ``presentedForm`` (text/plain) or else
``conclusion``; ``status`` preliminary/partial, final, or amended/corrected/appended.
"""
from __future__ import annotations

from pydantic import ValidationError

from radreview.errors import ServiceError

from .services import ReportDelivery

ACCESSION_TYPE = ("http://terminology.hl7.org/CodeSystem/v2-0203", "ACSN")
STATUSES = {"preliminary": "preliminary", "partial": "preliminary", "final": "final",
            "amended": "corrected", "corrected": "corrected", "appended": "corrected"}


class ResourceRefused(ServiceError):
    """A FHIR resource RadReview does not store; the message says why."""


def _accession(resource) -> str:
    for identifier in resource.identifier or []:
        codings = identifier.type.coding if identifier.type and identifier.type.coding else []
        if any((c.system, c.code) == ACCESSION_TYPE for c in codings) and identifier.value:
            return identifier.value.strip()
    return ""


def _text(resource) -> str:
    for attachment in resource.presentedForm or []:
        if (attachment.contentType or "").split(";")[0].strip() == "text/plain" \
                and attachment.data:
            try:  # fhir.resources has decoded the base64 already
                return attachment.data.decode("utf-8")
            except UnicodeDecodeError:
                raise ResourceRefused("presentedForm: the text/plain data is not UTF-8 "
                                      "text.") from None
    return resource.conclusion or ""


def read_diagnostic_report(data, *, sender: str) -> ReportDelivery:
    """The report a DiagnosticReport resource (parsed JSON) carries; ``ResourceRefused``."""
    from fhir.resources.R4B.diagnosticreport import DiagnosticReport  # noqa: PLC0415 - defer fhir

    if not isinstance(data, dict) or data.get("resourceType") != "DiagnosticReport":
        raise ResourceRefused("Expected a FHIR DiagnosticReport resource.")
    try:
        resource = DiagnosticReport.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, error['loc']))}: {error['msg']}"
                             for error in exc.errors()[:3])
        raise ResourceRefused(f"Not a valid R4 DiagnosticReport: {problems}.") from None
    if resource.status not in STATUSES:
        raise ResourceRefused(f"A report with status {resource.status!r} is not taken: send it "
                              "as preliminary, final, amended or corrected.")
    accession = _accession(resource)
    if not accession:
        raise ResourceRefused("No accession number: give an identifier whose type is v2-0203 "
                              "ACSN.")
    subject = resource.subject
    patient_id = (subject.identifier.value or "").strip() if subject and subject.identifier \
        else ""
    return ReportDelivery(channel="fhir", text=_text(resource), accession_number=accession,
                          patient_id=patient_id, result_status=STATUSES[resource.status],
                          sender=sender, message_id=resource.id or "")
