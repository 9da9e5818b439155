"""Turning an upload into studies, or refusing it with a message and storing nothing.

Every file is checked before anything is written: sizes, type, DICOM parsing with a full pixel
decode (so a corrupt compressed frame is caught now, not in a worker), image decoding, report
text. Only when the whole upload is acceptable are the studies, images, reports and jobs
created, in one transaction; files written before a failure are removed again.
"""
from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils.text import get_valid_filename

from radreview.audit.services import record_event
from radreview.jobs import services as jobs
from workers import imaging, pipeline

from ..models import Image, Report, Study

logger = logging.getLogger(__name__)


class UploadRejected(Exception):
    """An upload we refuse; ``message`` says why, in words a radiologist can act on."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass
class UploadRequest:
    files: list = field(default_factory=list)  # Django UploadedFile objects
    report_text: str = ""
    has_prior: bool = False


@dataclass
class _CheckedImage:
    upload: object
    kind: str
    sha256: str
    metadata: dict
    view: str
    rows: int | None
    columns: int | None


def _mb(num_bytes: int) -> str:
    return f"{num_bytes / (1024 * 1024):.0f} MB"


def _sha256(upload) -> str:
    digest = hashlib.sha256()
    for chunk in upload.chunks():
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()


def _head(upload) -> bytes:
    upload.seek(0)
    head = upload.read(imaging.SNIFF_BYTES)
    upload.seek(0)
    return head


def _decode_report_file(upload) -> str:
    raw = upload.read()
    upload.seek(0)
    if b"\x00" in raw:
        raise UploadRejected(f"{upload.name}: this is not a plain-text report.")
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise UploadRejected(f"{upload.name}: the report's text encoding could not be read (use UTF-8).")


def _check_sizes(files: list) -> None:
    if len(files) > settings.MAX_UPLOAD_FILES:
        raise UploadRejected(f"Too many files: at most {settings.MAX_UPLOAD_FILES} per upload.")
    total = 0
    for upload in files:
        if upload.size == 0:
            raise UploadRejected(f"{upload.name}: the file is empty.")
        if upload.size > settings.MAX_UPLOAD_FILE_BYTES:
            raise UploadRejected(
                f"{upload.name}: the file is {_mb(upload.size)}; the limit per file is "
                f"{_mb(settings.MAX_UPLOAD_FILE_BYTES)}."
            )
        total += upload.size
    if total > settings.MAX_UPLOAD_STUDY_BYTES:
        raise UploadRejected(
            f"The upload is {_mb(total)}; the limit per study is {_mb(settings.MAX_UPLOAD_STUDY_BYTES)}."
        )


def _check_image(upload, kind: str) -> _CheckedImage:
    try:
        if kind == "dicom":
            decoded = imaging.read_dicom(upload)
            meta = decoded.metadata
            return _CheckedImage(upload, kind, _sha256(upload), meta.to_dict(), meta.view_position,
                                 meta.rows, meta.columns)
        decoded = imaging.read_raster(upload)
    except imaging.ImagingError as exc:
        raise UploadRejected(f"{upload.name}: {exc.message}") from None
    finally:
        upload.seek(0)
    rows, columns = decoded.pixels.shape
    return _CheckedImage(upload, kind, _sha256(upload), {}, Image.View.UNKNOWN, rows, columns)


def _check_report(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > settings.MAX_REPORT_CHARS:
        raise UploadRejected(
            f"The report has {len(text):,} characters; the limit is {settings.MAX_REPORT_CHARS:,}."
        )
    return text


def check_upload(request: UploadRequest) -> tuple[dict[str, list[_CheckedImage]], str]:
    """Validate everything; return the images grouped by study and the report text."""
    _check_sizes(request.files)
    report_text = request.report_text or ""
    images: list[_CheckedImage] = []
    for upload in request.files:
        kind = imaging.detect_kind(_head(upload), upload.name)
        if kind == "text":
            if report_text.strip():
                raise UploadRejected("Give one report: either pasted or as a single .txt file.")
            report_text = _decode_report_file(upload)
        elif kind in ("dicom", "png", "jpeg"):
            images.append(_check_image(upload, kind))
        else:
            raise UploadRejected(
                f"{upload.name}: not a DICOM file, a PNG or JPEG image, or a .txt report."
            )
    report_text = _check_report(report_text)
    if not images and not report_text:
        if request.report_text or any(getattr(f, "name", "").endswith(".txt") for f in request.files):
            raise UploadRejected("The report is empty.")
        raise UploadRejected("Nothing to upload: add DICOM files, PNG/JPEG images, or a report.")

    seen: set[str] = set()
    for image in images:
        if image.sha256 in seen:
            raise UploadRejected(f"{image.upload.name}: the same file appears twice in this upload.")
        seen.add(image.sha256)

    groups: dict[str, list[_CheckedImage]] = {}
    for image in images:
        groups.setdefault(image.metadata.get("study_instance_uid", "") if image.kind == "dicom" else "", []).append(image)
    dicom_uids = [uid for uid in groups if uid]
    plain_images = "" in groups
    if len(dicom_uids) > 1 and (report_text or plain_images):
        raise UploadRejected(
            f"These DICOM files belong to {len(dicom_uids)} different studies; a report or plain "
            "images can only go with one study. Upload each study separately."
        )
    if len(dicom_uids) == 1 and plain_images:
        groups[dicom_uids[0]].extend(groups.pop(""))
    if not groups:
        groups[""] = []
    return groups, report_text


def _study_fields(first_dicom: dict) -> dict:
    from datetime import date

    study_date = None
    raw_date = first_dicom.get("study_date") or ""
    if len(raw_date) == 8 and raw_date.isdigit():
        try:
            study_date = date(int(raw_date[:4]), int(raw_date[4:6]), int(raw_date[6:]))
        except ValueError:
            study_date = None
    return {
        "study_instance_uid": first_dicom.get("study_instance_uid") or "",
        "accession_number": (first_dicom.get("accession_number") or "")[:64],
        "patient_id": (first_dicom.get("patient_id") or "")[:64],
        "patient_name": (first_dicom.get("patient_name") or "")[:200],
        "patient_sex": (first_dicom.get("patient_sex") or "")[:16],
        "patient_age": (first_dicom.get("patient_age") or "")[:16],
        "study_date": study_date,
        "description": (first_dicom.get("study_description") or "")[:200],
    }


def create_studies(*, user, request: UploadRequest) -> list[Study]:
    """Check the upload, then create its studies and start their pipelines."""
    groups, report_text = check_upload(request)
    written: list[Path] = []
    try:
        with transaction.atomic():
            studies = [
                _create_study(user, images, report_text, request.has_prior, written)
                for images in groups.values()
            ]
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return studies


def _create_study(user, images: list[_CheckedImage], report_text: str, has_prior: bool,
                  written: list[Path]) -> Study:
    first_dicom = next((image.metadata for image in images if image.kind == "dicom"), {})
    study = Study.objects.create(uploaded_by=user, has_prior=has_prior, **_study_fields(first_dicom))
    for position, checked in enumerate(images):
        image = Image(
            study=study, position=position, kind=checked.kind,
            original_name=Path(checked.upload.name).name[:255], size_bytes=checked.upload.size,
            sha256=checked.sha256, view=checked.view, rows=checked.rows, columns=checked.columns,
            metadata=checked.metadata,
            sop_instance_uid=checked.metadata.get("sop_instance_uid") or "",
            series_instance_uid=checked.metadata.get("series_instance_uid") or "",
        )
        image.original.save(get_valid_filename(image.original_name) or f"image-{position}", checked.upload, save=False)
        written.append(Path(image.original.path))
        image.save()
    if report_text:
        Report.objects.create(study=study, kind=Report.Kind.UPLOADED, text=report_text,
                              source="upload", created_by=user)
    jobs.plan_jobs(study, pipeline.StudyInputs(has_images=bool(images), has_report=bool(report_text)))
    record_event("study_uploaded", actor=user, study=study,
                 detail={"images": len(images), "report": bool(report_text)})
    jobs.start_next(study)
    logger.info("study %s uploaded with %s images, report: %s", study.pk, len(images), bool(report_text))
    return study
