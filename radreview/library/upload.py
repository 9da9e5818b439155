"""Where the admin's image imports come from: a ZIP file uploaded on the library page, or a
folder on the server below ``settings.LIBRARY_IMPORT_ROOT``."""
from __future__ import annotations

import uuid
import zipfile
from pathlib import Path

from django.conf import settings

from .image_import import ImportRefused

MAX_MEMBERS = 200_000
MAX_UNPACKED_BYTES = 64 * 1024 ** 3
REPORT_SUFFIXES = (".csv", ".jsonl", ".ndjson")


def uploads_dir() -> Path:
    folder = Path(settings.LIBRARY_IMPORT_ROOT) / ".uploads"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def save_upload(uploaded) -> Path:
    """Keep an uploaded ZIP file until the import job has read it."""
    target = uploads_dir() / f"{uuid.uuid4().hex}.zip"
    with target.open("wb") as handle:
        for chunk in uploaded.chunks():
            handle.write(chunk)
    if not zipfile.is_zipfile(target):
        target.unlink(missing_ok=True)
        raise ImportRefused("The uploaded file is not a ZIP archive.")
    return target


def unpack_archive(archive: Path) -> tuple[Path, Path]:
    """(folder, reports file) of an unpacked archive; members may not leave the folder."""
    folder = uploads_dir() / archive.stem
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = [m for m in bundle.infolist() if not m.is_dir()]
            if len(members) > MAX_MEMBERS:
                raise ImportRefused(f"The archive holds {len(members)} files; at most "
                                    f"{MAX_MEMBERS} are accepted.")
            if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
                raise ImportRefused("The archive unpacks to more than 64 GB.")
            for member in members:
                target = (folder / member.filename).resolve()
                if folder.resolve() not in target.parents:
                    raise ImportRefused(f"The archive member {member.filename!r} would be "
                                        "written outside the import folder.")
                target.parent.mkdir(parents=True, exist_ok=True)
                with bundle.open(member) as source, target.open("wb") as sink:
                    while chunk := source.read(1 << 20):
                        sink.write(chunk)
    except zipfile.BadZipFile:
        raise ImportRefused("The archive is damaged and cannot be unpacked.") from None
    return folder, find_reports_file(folder)


def find_reports_file(folder: Path) -> Path:
    candidates = sorted(p for p in folder.rglob("*") if p.is_file()
                        and p.suffix.lower() in REPORT_SUFFIXES
                        and not any(part.startswith((".", "__")) for part in
                                    p.relative_to(folder).parts))
    named = [p for p in candidates if p.stem.lower() == "reports"]
    if len(named) == 1:
        return named[0]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise ImportRefused("The archive holds no reports file (a .csv or .jsonl file).")
    raise ImportRefused("The archive holds several .csv/.jsonl files; name the reports file "
                        "reports.csv or reports.jsonl.")


def server_path(relative: str, *, folder: bool) -> Path:
    """A path below LIBRARY_IMPORT_ROOT, or ImportRefused."""
    root = Path(settings.LIBRARY_IMPORT_ROOT).resolve()
    path = (root / (relative or "").strip().lstrip("/")).resolve()
    if path != root and root not in path.parents:
        raise ImportRefused(f"{relative!r} is not inside the import folder {root}.")
    if folder and not path.is_dir():
        raise ImportRefused(f"There is no folder {relative!r} in {root}.")
    if not folder and not path.is_file():
        raise ImportRefused(f"There is no file {relative!r} in {root}.")
    return path
