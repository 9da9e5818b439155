"""RadReview's own DICOM studies as DICOMweb sees them: QIDO-RS matching and the datasets.

Only DICOM images are published (a PNG or a report alone has no DICOM identity). Several
RadReview studies may share one StudyInstanceUID; DICOMweb shows them as one study.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import pydicom
from django.db.models import Q
from pydicom.dataset import Dataset

from radreview.errors import ServiceError
from radreview.studies.models import Image, Study
from radreview.studies.storage import open_original, read_original

# QIDO-RS attribute names (keywords or tags) mapped to the Study fields they match.
STUDY_MATCH = {
    "PatientID": "patient_id", "00100020": "patient_id",
    "AccessionNumber": "accession_number", "00080050": "accession_number",
    "StudyInstanceUID": "study_instance_uid", "0020000D": "study_instance_uid",
    "PatientName": "patient_name", "00100010": "patient_name",
}
DATE_KEYS = ("StudyDate", "00080020")
_DATE = re.compile(r"^(\d{8})?(-)?(\d{8})?$")


class QueryError(ServiceError, ValueError):
    """A query parameter we cannot match; the message names it."""


def _dicom_date(value: str) -> date:
    return date(int(value[:4]), int(value[4:6]), int(value[6:8]))


def _date_filter(value: str) -> Q:
    match = _DATE.match(value.replace(" ", ""))
    if not match or not (match.group(1) or match.group(3)):
        raise QueryError(f"StudyDate {value!r} is not a DICOM date or range (YYYYMMDD-YYYYMMDD)")
    try:
        low = _dicom_date(match.group(1)) if match.group(1) else None
        high = _dicom_date(match.group(3)) if match.group(3) else None
    except ValueError:
        raise QueryError(f"StudyDate {value!r} is not a valid date") from None
    if not match.group(2):
        return Q(study_date=low)
    condition = Q()
    if low:
        condition &= Q(study_date__gte=low)
    if high:
        condition &= Q(study_date__lte=high)
    return condition


def _text_filter(field: str, value: str) -> Q:
    """DICOM matching: exact, or with * and ? wildcards (case-insensitive for names)."""
    if "*" in value or "?" in value:
        pattern = "^" + re.escape(value).replace(r"\*", ".*").replace(r"\?", ".") + "$"
        return Q(**{f"{field}__iregex": pattern})
    if field == "patient_name":
        return Q(patient_name__iexact=value)
    return Q(**{field: value})


def published_studies(params) -> list[Study]:
    """Studies with DICOM images matching the QIDO-RS query parameters, newest first."""
    studies = Study.objects.exclude(study_instance_uid="").filter(
        images__kind=Image.Kind.DICOM).distinct()
    for key, value in params.items():
        if not value:
            continue
        if key in STUDY_MATCH:
            studies = studies.filter(_text_filter(STUDY_MATCH[key], value))
        elif key in DATE_KEYS:
            studies = studies.filter(_date_filter(value))
    return list(studies.prefetch_related("images").order_by("-study_date", "-created_at"))


@dataclass
class PublishedStudy:
    """One StudyInstanceUID and the RadReview rows behind it."""

    uid: str
    studies: list[Study]
    images: list[Image]

    @property
    def first(self) -> Study:
        return self.studies[0]


def group_by_uid(studies: list[Study]) -> list[PublishedStudy]:
    grouped: dict[str, PublishedStudy] = {}
    for study in studies:
        entry = grouped.setdefault(study.study_instance_uid,
                                   PublishedStudy(study.study_instance_uid, [], []))
        entry.studies.append(study)
        entry.images += [image for image in study.images.all() if image.kind == Image.Kind.DICOM]
    return list(grouped.values())


def images_of(study_uid: str, series_uid: str = "", sop_uid: str = "") -> list[Image]:
    images = Image.objects.filter(study__study_instance_uid=study_uid, kind=Image.Kind.DICOM)
    if series_uid:
        images = images.filter(series_instance_uid=series_uid)
    if sop_uid:
        images = images.filter(sop_instance_uid=sop_uid)
    return list(images.select_related("study").order_by("study_id", "position", "id"))


def read(image: Image, *, pixels: bool = True) -> Dataset:
    """The image's dataset; ``OriginalMissing`` (answered 410) when its file is gone."""
    with open_original(image) as handle:
        return pydicom.dcmread(handle, stop_before_pixels=not pixels)


def file_bytes(image: Image) -> bytes:
    return read_original(image)
