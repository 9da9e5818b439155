"""The PACS's DICOMweb, read by "Import from PACS": search studies with QIDO-RS, list a
study's instances and retrieve them one by one with WADO-RS (the import job in
``pacs_import`` does the retrieving, in a worker).

Talks to the PACS's DICOMweb root (``RADREVIEW_PACS_DICOMWEB_URL``) with ``requests``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import requests
from django.conf import settings

from radreview.errors import ServiceError
from radreview.studies.models import Study

from .dicomweb import multipart

_UID = re.compile(r"[0-9.]{1,64}")


class PacsError(ServiceError):
    """The PACS could not be searched or read; the message says why, for the page."""


def is_uid(value: str) -> bool:
    """A DICOM UID (digits and dots), safe in a URL and a file name."""
    return bool(_UID.fullmatch(value))


@dataclass(frozen=True)
class PacsStudy:
    """One QIDO-RS study result."""

    study_instance_uid: str
    patient_name: str
    patient_id: str
    accession_number: str
    study_date: date | None
    description: str
    modalities: str
    instances: int | None
    # The RadReview study it is already, if any, or the import job under way for it.
    imported_as: int | None = None
    import_job: int | None = None


@dataclass(frozen=True)
class PacsInstance:
    series_instance_uid: str
    sop_instance_uid: str


def configured() -> bool:
    return bool(settings.PACS_DICOMWEB_URL)


def _session() -> requests.Session:
    session = requests.Session()
    if settings.PACS_DICOMWEB_USER:
        session.auth = (settings.PACS_DICOMWEB_USER, settings.PACS_DICOMWEB_PASSWORD)
    return session


def _get(path: str, accept: str, params: dict | None = None,
         what: str = "the search") -> requests.Response:
    if not configured():
        raise PacsError("No PACS is configured for import (RADREVIEW_PACS_DICOMWEB_URL); "
                        "ask an admin.")
    url = f"{settings.PACS_DICOMWEB_URL}/{path}"
    try:
        answer = _session().get(url, params=params, headers={"Accept": accept},
                                timeout=settings.PACS_TIMEOUT_SECONDS)
    except requests.RequestException as exc:
        raise PacsError(f"The PACS could not be reached ({type(exc).__name__}).") from None
    if answer.status_code == 204:
        return answer
    if answer.status_code in (401, 403):
        raise PacsError("The PACS refused RadReview's credentials; ask an admin.")
    if answer.status_code >= 400:
        raise PacsError(f"The PACS answered {answer.status_code} to {what}.")
    return answer


def _value(document: dict, tag: str) -> str:
    values = document.get(tag, {}).get("Value") or [""]
    value = values[0]
    if isinstance(value, dict):  # a person name
        return value.get("Alphabetic", "")
    return str(value)


def _date(value: str) -> date | None:
    try:
        return date(int(value[:4]), int(value[4:6]), int(value[6:8])) if len(value) >= 8 else None
    except ValueError:
        return None


def search(*, patient_id: str = "", accession_number: str = "", study_date: str = "",
           limit: int = 50) -> list[PacsStudy]:
    """Studies on the PACS matching the given fields (a DICOM date or range for the date)."""
    params = {"PatientID": patient_id, "AccessionNumber": accession_number,
              "StudyDate": study_date, "limit": str(limit),
              "includefield": "00081030,00080061,00201208"}
    answer = _get("studies", "application/dicom+json", {k: v for k, v in params.items() if v})
    documents = [] if answer.status_code == 204 else answer.json()
    uids = [_value(d, "0020000D") for d in documents]
    known = dict(Study.objects.filter(study_instance_uid__in=uids)
                 .values_list("study_instance_uid", "pk"))
    results = []
    for document, uid in zip(documents, uids):
        count = _value(document, "00201208")
        results.append(PacsStudy(
            study_instance_uid=uid, patient_name=_value(document, "00100010"),
            patient_id=_value(document, "00100020"),
            accession_number=_value(document, "00080050"),
            study_date=_date(_value(document, "00080020")),
            description=_value(document, "00081030"),
            modalities=", ".join(document.get("00080061", {}).get("Value") or []),
            instances=int(count) if count.isdigit() else None, imported_as=known.get(uid)))
    return results


def instances(study_uid: str) -> list[PacsInstance]:
    """The instances of a study on the PACS (QIDO-RS), in the PACS's order."""
    answer = _get(f"studies/{study_uid}/instances", "application/dicom+json",
                  what="the request for the study's instances")
    found = []
    for document in [] if answer.status_code == 204 else answer.json():
        instance = PacsInstance(_value(document, "0020000E"), _value(document, "00080018"))
        if not (is_uid(instance.series_instance_uid) and is_uid(instance.sop_instance_uid)):
            raise PacsError("The PACS listed an instance without valid UIDs.")
        found.append(instance)
    return found


def retrieve_instance(study_uid: str, instance: PacsInstance) -> bytes:
    """One instance as a DICOM Part 10 file (WADO-RS)."""
    answer = _get(f"studies/{study_uid}/series/{instance.series_instance_uid}"
                  f"/instances/{instance.sop_instance_uid}",
                  'multipart/related; type="application/dicom"', what="the request for an instance")
    try:
        parts = multipart.decode(answer.content, answer.headers.get("Content-Type", ""))
    except multipart.MultipartError as exc:
        raise PacsError(f"The PACS's answer could not be read: {exc}.") from None
    for _headers, content in parts:
        if content:
            return content
    raise PacsError("The PACS sent an empty answer for an instance.")
