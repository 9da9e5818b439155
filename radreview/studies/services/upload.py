"""Turning an upload into studies, or refusing it with a message and storing nothing.

Every file is checked before anything is written: sizes, type, DICOM parsing with a full pixel
decode (so a corrupt compressed frame is caught now, not in a worker), image decoding, report
text. Only when the whole upload is acceptable are the studies, images, reports and jobs
created, in one transaction. The files go into a folder of the upload's own, named by an intent
committed before the first of them is written (radreview/media/intents.py): a failure removes
them again, and so does a starting worker's sweep after a crash — nothing else ever does.
"""
from __future__ import annotations

import errno
import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import date

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction

from radreview.audit.services import record_event
from radreview.compare import services as drafting
from radreview.dictation import waiting as waiting_reports
from radreview.errors import ServiceError
from radreview.jobs import services as jobs
from radreview.library.drafting import drafting_available
from radreview.media import intents
from radreview.security import json_limits
from workers import imaging, pipeline

from ..models import Image, Report, Study, UploadKey
from ..report_text import clean_report_text, is_readable
from ..selectors import has_earlier_study

logger = logging.getLogger(__name__)


# An idempotency key: what clients send (a UUID, a hash, a job name), bounded.
KEY_PATTERN = re.compile(r"[\x21-\x7e]{1,128}")


class UploadRejected(ServiceError):
    """An upload we refuse; ``message`` says why, in words a radiologist can act on."""


class StorageFull(UploadRejected):
    """The media folder has no room: the upload is refused whole (the API answers 507)."""


STORAGE_FULL = ("The server's storage for images is full: nothing of this upload was stored. "
                "Tell your administrator, and upload again once space has been freed.")


@dataclass
class UploadRequest:
    files: list = field(default_factory=list)  # Django UploadedFile objects
    report_text: str = ""
    has_prior: bool = False
    # A candidate report and its samples made by a generator outside RadReview (RadFlag audits
    # that generator as a black box). The samples come one way only: as separate texts
    # (``samples``), as a JSON list or JSON lines pasted (``samples_text``), or as a .json /
    # .jsonl file (``samples_file``). See docs/radflag.md.
    candidate_text: str = ""
    samples: list = field(default_factory=list)
    samples_text: str = ""
    samples_file: object = None
    candidate_temperature: float | None = None
    sample_temperature: float | None = None
    generator_name: str = ""
    # Typed on the upload form for a study without DICOM headers (a report alone, PNG/JPEG).
    patient_name: str = ""
    patient_id: str = ""
    accession_number: str = ""
    # How the files reached RadReview (a browser upload, a DICOM sender, the PACS).
    source: str = "upload"
    source_detail: str = ""


@dataclass(frozen=True)
class ExternalReports:
    """A checked candidate and its samples from a generator outside RadReview."""

    candidate: str
    samples: list[str]
    source: str
    candidate_temperature: float | None = None
    sample_temperature: float | None = None


@dataclass
class _CheckedImage:
    upload: object
    kind: str
    sha256: str
    metadata: dict
    view: str
    rows: int | None
    columns: int | None


STORED_EXTENSIONS = {"dicom": ".dcm", "png": ".png", "jpeg": ".jpg"}


def shown_name(client_name) -> str:
    """The file name the client gave, for display only: its last path part, printable."""
    name = str(client_name or "").replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(ch for ch in name if ch.isprintable()).strip()[:255] or "unnamed"


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
    raise UploadRejected(
        f"{upload.name}: the report's text encoding could not be read (use UTF-8)."
    )


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
            f"The upload is {_mb(total)}; the limit per study is "
            f"{_mb(settings.MAX_UPLOAD_STUDY_BYTES)}."
        )


DICOM_SUFFIXES = (".dcm", ".dicom", ".dic")


def _check_named_dicom(upload, kind: str | None) -> None:
    """A file named like DICOM must be DICOM: never silently taken as the report."""
    if kind != "dicom" and upload.name.lower().endswith(DICOM_SUFFIXES):
        raise UploadRejected(f"{upload.name}: not DICOM — the file is named like a DICOM file "
                             "but has no DICOM header. Upload the original file from the "
                             "modality or the PACS.")


def _check_not_stored_yet(images: list[_CheckedImage]) -> None:
    """A re-sent SOP instance never makes a second study: refuse it, naming the study."""
    uids = {image.metadata.get("sop_instance_uid"): image for image in images
            if image.kind == "dicom" and image.metadata.get("sop_instance_uid")}
    if not uids:
        return
    existing = (Image.objects.filter(sop_instance_uid__in=list(uids))
                .values_list("sop_instance_uid", "study_id").order_by("study_id").first())
    if existing is not None:
        sop_uid, study_id = existing
        raise UploadRejected(f"{uids[sop_uid].upload.name}: this image is already in study "
                             f"#{study_id}; nothing was uploaded. Open study #{study_id} instead.")


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


def check_text(text: str, what: str) -> str:
    """``text`` cleaned for storage (studies/report_text.py), or refused with the reason."""
    if len(text) > settings.MAX_REPORT_CHARS:
        raise UploadRejected(
            f"{what} has {len(text):,} characters; the limit is {settings.MAX_REPORT_CHARS:,}."
        )
    cleaned = clean_report_text(text)
    if text.strip() and not is_readable(cleaned):
        raise UploadRejected(f"{what} has no readable text (only control characters, spaces or "
                             "punctuation).")
    return cleaned


def _sample_text(value, where: str) -> str:
    if isinstance(value, dict) and "text" in value:
        value = value["text"]
    if not isinstance(value, str):
        raise UploadRejected(f"{where}: expected a sample report text (a JSON string, or an object "
                             "with a \"text\")")
    return value


def parse_samples(text: str, name: str = "Samples") -> list[str]:
    """Sample texts from a JSON list (``["...", "..."]``) or JSON lines (one string, or one
    object with a "text", per line). Refusals name the line or item."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        try:
            items = json_limits.loads(stripped)
        except json_limits.JSONRefused as exc:
            raise UploadRejected(f"{name}: {exc}.") from None
        except ValueError as exc:
            raise UploadRejected(
                f"{name}: not a valid JSON list ({exc.msg}, line {exc.lineno})."
            ) from None
        if not isinstance(items, list):
            raise UploadRejected(f"{name}: expected a JSON list of sample texts.")
        return [
            _sample_text(item, f"{name}, item {number}")
            for number, item in enumerate(items, start=1)
        ]
    samples = []
    for number, line in enumerate(stripped.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json_limits.loads(line)
        except json_limits.JSONRefused as exc:
            raise UploadRejected(f"{name}, line {number}: {exc}.") from None
        except ValueError as exc:
            raise UploadRejected(
                f"{name}, line {number}: not valid JSON ({exc.msg}). Give the samples as a JSON "
                "list or as JSON lines, one quoted sample per line.") from None
        samples.append(_sample_text(item, f"{name}, line {number}"))
    return samples


def _collect_samples(request: UploadRequest) -> list[str] | None:
    """The samples, from whichever one way they came; None when none were given."""
    given = [bool(request.samples), bool((request.samples_text or "").strip()),
             request.samples_file is not None]
    if sum(given) > 1:
        raise UploadRejected("Give the samples one way only: as separate fields, pasted as a JSON "
                             "list / JSON lines, or as a .json / .jsonl file.")
    if request.samples:
        return list(request.samples)
    if request.samples_text and request.samples_text.strip():
        return parse_samples(request.samples_text)
    if request.samples_file is not None:
        upload = request.samples_file
        if upload.size > settings.MAX_UPLOAD_FILE_BYTES:
            raise UploadRejected(
                f"{upload.name}: the file is {_mb(upload.size)}; the limit per file "
                f"is {_mb(settings.MAX_UPLOAD_FILE_BYTES)}."
            )
        raw = upload.read()
        upload.seek(0)
        if b"\x00" in raw:
            raise UploadRejected(f"{upload.name}: this is not a text file of samples.")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise UploadRejected(f"{upload.name}: the samples file is not UTF-8 text.") from None
        return parse_samples(text, upload.name)
    return None


def _check_temperature(value, what: str) -> float | None:
    if value is None:
        return None
    if not 0.0 <= value <= 5.0:
        raise UploadRejected(f"The {what} temperature must be between 0 and 5, got {value:g}.")
    return float(value)


def check_external(request: UploadRequest) -> ExternalReports | None:
    """The candidate and samples made elsewhere, checked; None when none were given."""
    candidate = check_text(request.candidate_text or "", "The candidate report")
    samples = _collect_samples(request)
    if not candidate and samples is None:
        return None
    if not candidate:
        raise UploadRejected("Samples were given without their candidate report: paste the "
                             "candidate that the same generator made.")
    minimum, maximum = settings.RADFLAG_MIN_UPLOADED_SAMPLES, settings.RADFLAG_MAX_UPLOADED_SAMPLES
    if not samples:
        raise UploadRejected(f"A candidate made elsewhere needs its samples (at least {minimum}). "
                             "To audit a report without samples, paste it as the report.")
    if len(samples) < minimum:
        raise UploadRejected(f"Only {len(samples)} sample: RadFlag needs at least {minimum}.")
    if len(samples) > maximum:
        raise UploadRejected(f"{len(samples)} samples: at most {maximum} are accepted.")
    checked = []
    for number, sample in enumerate(samples, start=1):
        text = check_text(sample, f"Sample {number}")
        if not text:
            raise UploadRejected(f"Sample {number} is empty.")
        checked.append(text)
    name = (request.generator_name or "").strip()
    if len(name) > 200:
        raise UploadRejected("The generator's name may have at most 200 characters.")
    return ExternalReports(
        candidate=candidate, samples=checked, source=name or "external generator",
        candidate_temperature=_check_temperature(request.candidate_temperature, "candidate"),
        sample_temperature=_check_temperature(request.sample_temperature, "sample"),
    )


def check_upload(request: UploadRequest
                 ) -> tuple[dict[str, list[_CheckedImage]], str, ExternalReports | None]:
    """Validate everything; return the images grouped by study, the report text, and the
    candidate with its samples made elsewhere (None when none were given)."""
    _check_sizes(request.files)
    report_text = request.report_text or ""
    images: list[_CheckedImage] = []
    for upload in request.files:
        kind = imaging.detect_kind(_head(upload), upload.name)
        _check_named_dicom(upload, kind)
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
    report_text = check_text(report_text, "The report")
    external = check_external(request)
    if external is not None and report_text:
        raise UploadRejected("Give either a report to audit, or a candidate with its samples made "
                             "elsewhere — not both.")
    if not images and not report_text and external is None:
        if request.report_text or any(
            getattr(f, "name", "").endswith(".txt") for f in request.files
        ):
            raise UploadRejected("The report is empty.")
        raise UploadRejected("Nothing to upload: add DICOM files, PNG/JPEG images, or a report.")

    seen: set[str] = set()
    for image in images:
        if image.sha256 in seen:
            raise UploadRejected(
                f"{image.upload.name}: the same file appears twice in this upload."
            )
        seen.add(image.sha256)
    _check_not_stored_yet(images)

    groups: dict[str, list[_CheckedImage]] = {}
    for image in images:
        groups.setdefault(
            image.metadata.get("study_instance_uid", "") if image.kind == "dicom" else "", []
        ).append(image)
    dicom_uids = [uid for uid in groups if uid]
    plain_images = "" in groups
    if len(dicom_uids) > 1 and (report_text or plain_images or external is not None):
        raise UploadRejected(
            f"These DICOM files belong to {len(dicom_uids)} different studies; "
            f"a report, samples or "
            "plain images can only go with one study. Upload each study separately."
        )
    if len(dicom_uids) == 1 and plain_images:
        groups[dicom_uids[0]].extend(groups.pop(""))
    if not groups:
        groups[""] = []
    return groups, report_text, external


def _iso_date(value: str | None) -> date | None:
    """The metadata's ISO date ("2024-05-01"), or None when absent or not a date."""
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _study_fields(first_dicom: dict, request: UploadRequest) -> dict:
    """The study's identifiers: from the DICOM headers, else as typed on the form."""
    def pick(key: str, typed: str, limit: int) -> str:
        return ((first_dicom.get(key) or typed or "").strip())[:limit]

    return {
        "study_instance_uid": first_dicom.get("study_instance_uid") or "",
        "accession_number": pick("accession_number", request.accession_number, 64),
        "patient_id": pick("patient_id", request.patient_id, 64),
        "patient_name": pick("patient_name", request.patient_name, 200),
        "patient_sex": (first_dicom.get("patient_sex") or "")[:16],
        "patient_age": (first_dicom.get("patient_age") or "")[:16],
        "patient_birth_date": _iso_date(first_dicom.get("patient_birth_date")),
        "study_date": _iso_date(first_dicom.get("study_date")),
        "description": (first_dicom.get("study_description") or "")[:200],
        "source": request.source,
        "source_detail": request.source_detail[:64],
    }


def create_studies(*, user, request: UploadRequest) -> list[Study]:
    """Check the upload, then create its studies and start their pipelines."""
    return _create(user, request, key="")


def create_studies_once(*, user, request: UploadRequest, key: str) -> tuple[list[Study], bool]:
    """Like ``create_studies``, for an upload that may be a retry: with a key this user sent
    before, the first upload's studies come back (and True: replayed) and nothing is created.

    The key is stored in the transaction that creates the studies, so a failure leaves
    neither; two concurrent requests with one key meet at its unique constraint, and the
    loser answers with the winner's studies.
    """
    if not key:
        return create_studies(user=user, request=request), False
    if not KEY_PATTERN.fullmatch(key):
        raise UploadRejected("The idempotency key must be 1 to 128 visible ASCII characters.")
    if (studies := replayed(user, key)) is not None:
        return studies, True
    try:
        return _create(user, request, key=key), False
    except IntegrityError:
        if (studies := replayed(user, key)) is not None:
            return studies, True
        raise


def replayed(user, key: str) -> list[Study] | None:
    """The studies a previous upload with this key made, or None if there was none."""
    record = UploadKey.objects.filter(user=user, key=key).first()
    if record is None:
        return None
    logger.info("upload key replayed: studies %s", [study.pk for study in record.studies.all()])
    return list(record.studies.order_by("pk"))


def _stored_name(position: int, checked: _CheckedImage) -> str:
    """The stored name is ours (position and content hash); the client's name is only shown."""
    return f"{position:03d}-{checked.sha256[:16]}{STORED_EXTENSIONS[checked.kind]}"


def _create(user, request: UploadRequest, key: str) -> list[Study]:
    groups, report_text, external = check_upload(request)
    # The intent to write the files is committed before the first byte: the only proof on
    # which the files of an upload that dies half-way may be removed (radreview/media).
    planned = {str(number): [_stored_name(position, checked)
                             for position, checked in enumerate(images)]
               for number, images in enumerate(groups.values())}
    intent = (intents.begin(user=user, source=request.source, files_by_folder=planned)
              if any(planned.values()) else None)
    can_draft = drafting_available().available
    try:
        with transaction.atomic():
            record = UploadKey.objects.create(user=user, key=key) if key else None
            studies = [
                _create_study(user, images, report_text, request,
                              f"{intent.folder}/{number}" if intent else "", external,
                              can_draft)
                for number, images in enumerate(groups.values())
            ]
            if record is not None:
                record.studies.set(studies)
            if intent is not None:
                intents.complete(intent)
    except BaseException as exc:
        if intent is not None:
            intents.abandon(intent)
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            logger.error("upload refused: no space left in the media folder")
            raise StorageFull(STORAGE_FULL) from None
        raise
    return studies


def _create_study(user, images: list[_CheckedImage], report_text: str, request: UploadRequest,
                  folder: str, external: ExternalReports | None, can_draft: bool) -> Study:
    """The study's rows, its images' files written into ``folder`` (the upload's own). Images
    with no report, where none can be drafted (``can_draft``), wait for their report."""
    first_dicom = next((image.metadata for image in images if image.kind == "dicom"), {})
    fields = _study_fields(first_dicom, request)
    # A prior to compare with: said by the uploader, or an earlier study of the patient here.
    has_prior = request.has_prior or has_earlier_study(fields["patient_id"], fields["study_date"])
    study = Study.objects.create(uploaded_by=user, has_prior=has_prior, **fields)
    for position, checked in enumerate(images):
        image = Image(
            study=study, position=position, kind=checked.kind,
            original_name=shown_name(checked.upload.name), size_bytes=checked.upload.size,
            sha256=checked.sha256, view=checked.view, rows=checked.rows, columns=checked.columns,
            metadata=checked.metadata,
            sop_instance_uid=checked.metadata.get("sop_instance_uid") or "",
            series_instance_uid=checked.metadata.get("series_instance_uid") or "",
        )
        image.original = default_storage.save(f"{folder}/{_stored_name(position, checked)}",
                                              checked.upload)
        image.save()
    waiting = None
    if images and not report_text and external is None:
        # Its report may have come from dictation before its images (radreview/dictation).
        waiting = waiting_reports.take_for(study.accession_number, study.patient_id)
    if report_text or waiting is not None:
        report = Report.objects.create(
            study=study, kind=Report.Kind.UPLOADED, text=waiting.text if waiting else report_text,
            source=waiting.source if waiting else "upload", created_by=user,
            result_status=waiting.result_status if waiting else "")
        if waiting is not None:
            waiting_reports.attached(waiting, study, report)
    if external is not None:
        candidate = Report.objects.create(
            study=study, kind=Report.Kind.CANDIDATE, text=external.candidate,
            source=external.source, temperature=external.candidate_temperature, created_by=user)
        # made elsewhere: the version is whatever its name says ("maira-2 v1.3")
        drafting.note_draft(candidate, external.source, "")
        Report.objects.bulk_create(
            Report(study=study, kind=Report.Kind.SAMPLE, text=text, source=external.source,
                   temperature=external.sample_temperature, sample_index=number, created_by=user)
            for number, text in enumerate(external.samples)
        )
    has_report = bool(report_text) or waiting is not None
    inputs = pipeline.StudyInputs(has_images=bool(images), has_report=has_report,
                                  has_samples=external is not None, can_draft=can_draft)
    if inputs.awaits_report:
        Study.objects.filter(pk=study.pk).update(status=Study.Status.AWAITING_REPORT)
    detail = {"images": len(images), "report": has_report, "source": request.source}
    if waiting is not None:
        detail["report_from"] = waiting.channel
    if external is not None:
        detail["samples"] = len(external.samples)
    record_event("study_uploaded", actor=user, study=study, detail=detail)
    jobs.start_study(study, inputs)
    logger.info("study %s uploaded with %s images, report: %s", study.pk, len(images),
                has_report)
    return study
