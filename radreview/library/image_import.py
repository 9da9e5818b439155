"""Importing reference studies with images: a folder of DICOM/PNG/JPEG files and a CSV or
JSONL file of reports keyed by study (``import_reference --images DIR --reports FILE``, or the
reference library page, which runs it as a site job with a progress bar).

**Reports file.** CSV with a header row, or JSON lines. The study key is the first of the
columns/fields ``study``, ``study_id``, ``id``, ``external_id``; the text is ``report``, or
``findings`` and/or ``impression`` (joined as "FINDINGS: … IMPRESSION: …"). Optional:
``images`` — the study's image files, relative to the images folder (CSV: separated by ``;``;
JSONL: a list of paths or of ``{"path": …, "view": "PA"}`` objects).

**Which files belong to which study**, for each report, the first rule that finds files:
1. its ``images`` list;
2. a sub-folder named after the study key (``DIR/<key>/``, searched recursively);
3. files directly in ``DIR`` named ``<key>.<ext>`` or ``<key>_….<ext>`` / ``<key>-….<ext>``.
Files that no report claims are listed and left alone.

Every file is read with ``workers.imaging`` (full decode): a file that is not a readable
DICOM, PNG or JPEG image is refused with the reason, and the import goes on without it. A
report with no readable image is not imported. Re-running an import is safe: images already
in a study (same SHA-256) are skipped, and images missing from the image memory are added. The
work is committed study by study (a library does not fit one transaction), and the memory is
saved every ``SAVE_EVERY`` images and at the end.
"""
from __future__ import annotations

import csv
import hashlib
import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files.base import ContentFile
from django.core.management.base import CommandError
from django.db import transaction

from radreview.errors import ServiceError
from radreview.studies import storage
from radreview.studies.storage import write_media_atomically
from workers import imaging
from workers.backends import registry
from workers.imagememory import (
    ImageMemory,
    ImageMemoryError,
    LibraryImage,
    LibraryStudy,
    add_to_memory,
    memory_lock,
)
from workers.jsonl import JsonlError, numbered_jsonl
from workers.pipeline import Progress, no_progress

from . import image_memory, index_store, text_library
from .models import ReferenceImage, ReferenceStudy

logger = logging.getLogger(__name__)

KEY_FIELDS = ("study", "study_id", "id", "external_id")
SAVE_EVERY = 2000
MAX_KEY = 120
_VIEW_HINT_RE = re.compile(r"(?:^|[_\-. ])(pa|ap|lat|lateral|ll|rl|frontal)(?:$|[_\-. ])", re.I)
_VIEW_HINTS = {"pa": "PA", "ap": "AP", "frontal": "PA", "lat": "LATERAL", "lateral": "LATERAL",
               "ll": "LATERAL", "rl": "LATERAL"}
_SUFFIX = {"dicom": ".dcm", "png": ".png", "jpeg": ".jpg"}


class ImportRefused(ServiceError):
    """Nothing can be imported; ``message`` says why."""


@dataclass(frozen=True)
class ImageRef:
    path: Path
    view: str = ""


@dataclass
class ReportRecord:
    key: str
    report: str
    findings: str = ""
    impression: str = ""
    images: list[ImageRef] = field(default_factory=list)
    line: int = 0


@dataclass
class ImportSummary:
    source: str
    studies_created: int = 0
    studies_updated: int = 0
    images_added: int = 0
    duplicates: int = 0
    embedded: int = 0
    memory_images: int = 0
    refused: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"Imported {self.images_added} image{'s' * (self.images_added != 1)} into "
               f"{self.studies_created} new and {self.studies_updated} existing reference "
               f"stud{'ies' if self.studies_created + self.studies_updated != 1 else 'y'} "
               f"(source {self.source}); {self.duplicates} already there; the image memory "
               f"holds {self.memory_images} images."]
        if self.refused:
            out.append(f"Refused {len(self.refused)} file{'s' * (len(self.refused) != 1)}:")
            out += [f"  {name}: {reason}" for name, reason in self.refused]
        out += [f"Note: {problem}" for problem in self.problems]
        return out

    def to_dict(self) -> dict:
        return {"source": self.source, "studies_created": self.studies_created,
                "studies_updated": self.studies_updated, "images_added": self.images_added,
                "duplicates": self.duplicates, "embedded": self.embedded,
                "memory_images": self.memory_images,
                "refused": [{"file": f, "reason": r} for f, r in self.refused],
                "problems": self.problems}


# --- the reports file ------------------------------------------------------------------------


def _text_of(fields: dict) -> tuple[str, str, str]:
    findings = str(fields.get("findings") or "").strip()
    impression = str(fields.get("impression") or "").strip()
    report = str(fields.get("report") or "").strip()
    if not report:
        parts = ([f"FINDINGS: {findings}"] if findings else []) + \
            ([f"IMPRESSION: {impression}"] if impression else [])
        report = "\n".join(parts)
    return report, findings, impression


def _image_refs(value, images_dir: Path, where: str) -> list[ImageRef]:
    if value in (None, "", []):
        return []
    items = value if isinstance(value, list) else [v for v in str(value).split(";")]
    refs = []
    for item in items:
        path, view = (item.get("path"), item.get("view", "")) if isinstance(item, dict) \
            else (item, "")
        path = str(path or "").strip()
        if not path:
            continue
        resolved = (images_dir / path).resolve()
        if images_dir.resolve() not in resolved.parents:
            raise ImportRefused(f"{where}: the image path {path!r} leaves the images folder.")
        refs.append(ImageRef(resolved, str(view or "").upper()))
    return refs


def read_reports(path: Path, images_dir: Path) -> tuple[list[ReportRecord], list[str]]:
    """The records of a CSV or JSONL reports file, and the problems of single lines."""
    if not path.is_file():
        raise ImportRefused(f"The reports file {path} does not exist.")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ImportRefused(f"{path.name}: the reports file is not UTF-8 text.") from None
    rows: list[tuple[int, dict]] = []
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        try:
            rows = list(numbered_jsonl(path.name, lines=text.splitlines()))
        except JsonlError as exc:
            raise ImportRefused(str(exc)) from None
    else:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if not reader.fieldnames:
            raise ImportRefused(f"{path.name}: the CSV file has no header row.")
        reader.fieldnames = [name.strip().lower() for name in reader.fieldnames]
        rows = [(number + 1, row) for number, row in enumerate(reader, 1)]
    if not rows:
        raise ImportRefused(f"{path.name}: the reports file holds no reports.")
    fields = {str(k).lower() for _, row in rows for k in row}
    if not fields & set(KEY_FIELDS):
        raise ImportRefused(f"{path.name}: no study column; expected one of "
                            f"{', '.join(KEY_FIELDS)}.")
    if not fields & {"report", "findings", "impression"}:
        raise ImportRefused(f"{path.name}: no report column; expected report, or findings "
                            "and/or impression.")
    records, problems, seen = [], [], {}
    for number, row in rows:
        row = {str(k).lower(): v for k, v in row.items()}
        key = next((str(row[k]).strip() for k in KEY_FIELDS if str(row.get(k) or "").strip()),
                   "")
        where = f"{path.name} line {number}"
        if not key:
            problems.append(f"{where}: no study key; skipped.")
            continue
        if len(key) > MAX_KEY or "/" in key or "\\" in key or key in (".", ".."):
            problems.append(f"{where}: the study key {key[:40]!r} is not usable (at most "
                            f"{MAX_KEY} characters, no slashes); skipped.")
            continue
        if key in seen:
            problems.append(f"{where}: study {key} already appeared on line {seen[key]}; "
                            "skipped.")
            continue
        report, findings, impression = _text_of(row)
        if not report:
            problems.append(f"{where}: study {key} has an empty report; skipped.")
            continue
        seen[key] = number
        records.append(ReportRecord(key, report, findings, impression,
                                    _image_refs(row.get("images"), images_dir, where), number))
    return records, problems


# --- matching files to studies ---------------------------------------------------------------


def _files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in
                                             p.relative_to(folder).parts))


def match_files(images_dir: Path, records: list[ReportRecord], reports_file: Path | None = None
                ) -> tuple[dict[str, list[ImageRef]], list[str]]:
    """Each study's files (see the module docstring) and the problems found."""
    if not images_dir.is_dir():
        raise ImportRefused(f"The images folder {images_dir} does not exist.")
    all_files = [p for p in _files_under(images_dir)
                 if reports_file is None or p.resolve() != reports_file.resolve()]
    top_level = [p for p in all_files if p.parent == images_dir]
    matched: dict[str, list[ImageRef]] = {}
    problems: list[str] = []
    claimed: set[Path] = set()
    for record in records:
        refs = [r for r in record.images if r.path.is_file()]
        for missing in (r for r in record.images if not r.path.is_file()):
            problems.append(f"study {record.key}: the image {missing.path.name} listed in the "
                            "reports file does not exist.")
        if not refs and (images_dir / record.key).is_dir():
            refs = [ImageRef(p) for p in _files_under(images_dir / record.key)]
        if not refs:
            refs = [ImageRef(p) for p in top_level
                    if p.stem == record.key or p.name.startswith((record.key + "_",
                                                                  record.key + "-"))]
        if not refs:
            problems.append(f"study {record.key}: no image found (no images column, no folder "
                            f"{record.key}/, no file {record.key}.* or {record.key}_*); "
                            "not imported.")
            continue
        matched[record.key] = refs
        claimed.update(r.path.resolve() for r in refs)
    unclaimed = [p for p in all_files if p.resolve() not in claimed]
    if unclaimed:
        names = ", ".join(str(p.relative_to(images_dir)) for p in unclaimed[:5])
        more = f" and {len(unclaimed) - 5} more" if len(unclaimed) > 5 else ""
        problems.append(f"{len(unclaimed)} file{'s' * (len(unclaimed) != 1)} match no study of "
                        f"the reports file and were left alone: {names}{more}.")
    return matched, problems


# --- the import ------------------------------------------------------------------------------


def _view_of(decoded, ref: ImageRef) -> str:
    if ref.view in imaging.VIEWS:
        return ref.view
    if isinstance(decoded, imaging.DicomImage) and decoded.metadata.view_position != "UNKNOWN":
        return decoded.metadata.view_position
    match = _VIEW_HINT_RE.search(ref.path.stem)
    return _VIEW_HINTS[match.group(1).lower()] if match else "UNKNOWN"


def _metadata(decoded) -> dict:
    if isinstance(decoded, imaging.DicomImage):
        return decoded.metadata.to_dict(include_phi=False)
    return {"format": decoded.format, "mode": decoded.mode, "bit_depth": decoded.bit_depth}


def _store_study(record: ReportRecord, refs: list[ImageRef], source: str, images_dir: Path,
                 summary: ImportSummary) -> ReferenceStudy | None:
    """Read, check and store one study's images; None when none of them is readable."""
    readable = []
    for ref in refs:
        name = str(ref.path.relative_to(images_dir)) if images_dir in ref.path.parents \
            else ref.path.name
        try:
            data = ref.path.read_bytes()
            decoded = imaging.read_image(data, ref.path.name)
        except imaging.ImagingError as exc:
            summary.refused.append((name, exc.message))
            continue
        except OSError as exc:
            summary.refused.append((name, f"cannot be read ({exc.strerror or exc})."))
            continue
        kind = "dicom" if isinstance(decoded, imaging.DicomImage) else decoded.format
        readable.append((ref, name, data, decoded, kind))
    if not readable:
        summary.problems.append(f"study {record.key}: none of its images could be read; "
                                "not imported.")
        return None
    with transaction.atomic():
        study, created = ReferenceStudy.objects.get_or_create(
            source=source, external_id=record.key,
            defaults={"report": record.report, "findings": record.findings,
                      "impression": record.impression})
        if created:
            summary.studies_created += 1
        else:
            summary.studies_updated += 1
            if study.report != record.report:
                study.report, study.findings = record.report, record.findings
                study.impression = record.impression
                study.save(update_fields=["report", "findings", "impression"])
        known = set(study.images.values_list("sha256", flat=True))
        for ref, name, data, decoded, kind in readable:
            digest = hashlib.sha256(data).hexdigest()
            if digest in known:
                summary.duplicates += 1
                continue
            known.add(digest)
            rows, columns = decoded.pixels.shape
            image = ReferenceImage(study=study, kind=kind, original_name=name[:255],
                                   sha256=digest, rows=rows, columns=columns,
                                   view=_view_of(decoded, ref), metadata=_metadata(decoded))
            image.file.save(f"{digest[:16]}{_SUFFIX[kind]}", ContentFile(data), save=False)
            image.save()
            image.thumbnail = write_media_atomically(
                f"library/{study.pk}/thumbs/{image.pk}.png", imaging.thumbnail(decoded.pixels))
            image.save(update_fields=["thumbnail"])
            summary.images_added += 1
    return study


def _library_study(study: ReferenceStudy) -> LibraryStudy:
    return LibraryStudy(study.pk, study.external_id, study.source, study.report, tuple(
        LibraryImage(image.pk, image.file.name, image.kind, image.view)
        for image in study.images.all()))


def _add(memory, studies: list[LibraryStudy], roles: dict) -> int:
    """Embed ``studies`` into the memory, their files read from the media (fetched from the
    object store for the call, where media live there)."""
    with storage.local_copies():
        root = storage.local_root(image.path for study in studies for image in study.images)
        return add_to_memory(memory, studies, media_root=root, **roles)


def run_import(images_dir: str | Path, reports_file: str | Path, *, source: str = "site",
               progress: Progress = no_progress) -> ImportSummary:
    """Import the reference studies (see the module docstring); returns what happened."""

    images_dir, reports_file = Path(images_dir).resolve(), Path(reports_file).resolve()
    source = (source or "site").strip()[:40]
    summary = ImportSummary(source)
    records, problems = read_reports(reports_file, images_dir)
    matched, match_problems = match_files(images_dir, records, reports_file)
    summary.problems += problems + match_problems
    if not matched:
        raise ImportRefused("No study of the reports file has an image in the images folder:\n"
                            + "\n".join(summary.problems[:10]))
    roles = {"encoder": registry.image_encoder(), "extractor": registry.extractor(),
             "llm": registry.llm(), "embedder": registry.text_embedder()}
    total = sum(len(refs) for refs in matched.values())
    done = 0
    directory = image_memory.directory()
    with index_store.writing(index_store.IMAGE_MEMORY) as publish, memory_lock(directory):
        memory = ImageMemory.open(directory, **image_memory.options())
        memory.set_encoder(roles["encoder"])  # refuses a memory built with another encoder
        pending: list[LibraryStudy] = []
        since_save = 0

        def flush():
            nonlocal since_save
            if pending:
                summary.embedded += _add(memory, pending, roles)
                pending.clear()
            memory.save()
            publish()
            since_save = 0

        for record in records:
            refs = matched.get(record.key)
            if not refs:
                continue
            study = _store_study(record, refs, source, images_dir, summary)
            done += len(refs)
            if study is not None:
                pending.append(_library_study(study))
                since_save += len(refs)
            if len(pending) >= 16:
                summary.embedded += _add(memory, pending, roles)
                pending.clear()
            if since_save >= SAVE_EVERY:
                flush()
            progress(min(0.99, done / total), f"{done} of {total} files")
        flush()
        summary.memory_images = len(memory)
    # The new studies' reports also serve the text detectors' external retrieval.
    text_library.sync_index()
    logger.info("reference image import (source %s): %d images added, %d refused",
                source, summary.images_added, len(summary.refused))
    progress(1.0, f"{summary.images_added} images imported")
    return summary


# --- the import_reference command's --images/--reports option --------------------------------


def add_image_arguments(parser) -> None:
    """``--images DIR --reports FILE [--images-source NAME]`` for import_reference."""
    parser.add_argument("--images", type=Path, default=None, metavar="DIR",
                        help="import reference studies with images: a folder of DICOM/PNG/JPEG "
                             "files (see docs/images.md for how files map to studies)")
    parser.add_argument("--reports", type=Path, default=None, metavar="FILE",
                        help="with --images: a CSV or JSONL file of reports keyed by study")
    parser.add_argument("--images-source", default="site", metavar="NAME",
                        help="with --images: the library source the studies belong to "
                             "(default: site)")


def handle_image_import(command, options) -> bool:
    """Run the image import when ``--images`` was given; False when it was not."""

    if options.get("images") is None and options.get("reports") is None:
        return False
    if options.get("images") is None or options.get("reports") is None:
        raise CommandError("--images DIR and --reports FILE go together.")
    last = [-1]

    def progress(fraction, note=""):
        if int(fraction * 10) != last[0] and options.get("verbosity", 1) >= 1:
            last[0] = int(fraction * 10)
            command.stderr.write(f"{fraction:4.0%} {note}")

    try:
        summary = run_import(options["images"], options["reports"],
                             source=options.get("images_source") or "site", progress=progress)
    except (ImportRefused, ImageMemoryError, index_store.IndexStoreError) as exc:
        raise CommandError(exc.message) from None
    lines = summary.lines()
    command.stdout.write(lines[0])
    for line in lines[1:]:
        command.stderr.write(line)
    if summary.images_added == 0 and summary.duplicates == 0:
        raise CommandError("Nothing was imported.")
    return True
