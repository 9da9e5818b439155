"""Import from the PACS: search it with QIDO-RS and retrieve a study with WADO-RS, then hand
the instances to the upload service (the same checks and study creation as an upload).

Talks to the PACS's DICOMweb root (``RADREVIEW_PACS_DICOMWEB_URL``) with ``requests``.
"""
from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from datetime import date

import requests
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from pydicom import dcmread
from pydicom.dataset import Dataset

from radreview.studies.models import Study
from radreview.studies.services.upload import UploadRequest, create_studies

from .dicomweb import multipart

logger = logging.getLogger(__name__)


class PacsError(Exception):
    """The PACS could not be searched or read; the message says why, for the page."""


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
    # The RadReview study it is already, if any.
    imported_as: int | None = None


def configured() -> bool:
    return bool(settings.PACS_DICOMWEB_URL)


def _session() -> requests.Session:
    session = requests.Session()
    if settings.PACS_DICOMWEB_USER:
        session.auth = (settings.PACS_DICOMWEB_USER, settings.PACS_DICOMWEB_PASSWORD)
    return session


def _get(path: str, accept: str, params: dict | None = None) -> requests.Response:
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
        raise PacsError(f"The PACS answered {answer.status_code} to the search.")
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


def retrieve(study_uid: str) -> list[bytes]:
    """Every instance of a study, as DICOM Part 10 files."""
    answer = _get(f"studies/{study_uid}", 'multipart/related; type="application/dicom"')
    try:
        parts = multipart.decode(answer.content, answer.headers.get("Content-Type", ""))
    except multipart.MultipartError as exc:
        raise PacsError(f"The PACS's answer could not be read: {exc}.") from None
    return [content for _headers, content in parts if content]


def import_study(study_uid: str, *, user) -> Study:
    """Retrieve a study from the PACS and create it in RadReview (raises UploadRejected with
    the upload's message when a file is refused, PacsError when the PACS fails)."""
    files = [SimpleUploadedFile(f"{_sop_uid(data) or number}.dcm", data,
                                content_type="application/dicom")
             for number, data in enumerate(retrieve(study_uid), start=1)]
    if not files:
        raise PacsError("The PACS returned no instances for this study.")
    studies = create_studies(user=user, request=UploadRequest(
        files=files, source=Study.Source.PACS, source_detail="DICOMweb"))
    logger.info("study %s imported from the PACS (%s instances)", studies[0].pk, len(files))
    return studies[0]


def _sop_uid(data: bytes) -> str:
    try:
        dataset: Dataset = dcmread(io.BytesIO(data), stop_before_pixels=True)
    except Exception:
        return ""
    return str(dataset.get("SOPInstanceUID", ""))
