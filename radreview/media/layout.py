"""Where the originals of studies live in the media folder.

Since uploads record their intent, each upload writes into a folder of its own, named by its
intent's random token: ``originals/<year>/<month>/<token>/<study n>/<position>-<sha256>.<ext>``,
so no two uploads (and no two deployments sharing a bucket) can ever write the same name. Older
studies keep their files where they were written: ``studies/<study id>/originals/``.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from itertools import islice
from pathlib import Path

from django.conf import settings

ORIGINALS = "originals"
LEGACY_PATTERN = "studies/*/originals"
QUARANTINE = "quarantine"
PARTIAL_PREFIX = ".partial-"


def upload_folder(token: uuid.UUID, when: datetime) -> str:
    return f"{ORIGINALS}/{when:%Y}/{when:%m}/{token.hex}"


def _legacy_folders(root: Path) -> list[Path]:
    def study_id(folder: Path) -> tuple[int, str]:
        name = folder.parent.name
        return (int(name), name) if name.isdigit() else (2**63, name)

    return sorted(root.glob(LEGACY_PATTERN), key=study_id)


def iter_originals() -> Iterator[str]:
    """Every file under the originals' folders, oldest studies first, as a name relative to
    MEDIA_ROOT (the form ``Image.original`` stores). Includes ``.partial-*`` leftovers."""
    root = Path(settings.MEDIA_ROOT)
    for folder in _legacy_folders(root):
        for path in sorted(folder.iterdir()):
            if path.is_file():
                yield path.relative_to(root).as_posix()
    for path in sorted((root / ORIGINALS).rglob("*")):
        if path.is_file():
            yield path.relative_to(root).as_posix()


def is_partial(name: str) -> bool:
    return name.rsplit("/", 1)[-1].startswith(PARTIAL_PREFIX)


def sample_originals(count: int) -> list[str]:
    """Up to ``count`` complete originals, oldest studies first."""
    return list(islice((name for name in iter_originals() if not is_partial(name)), count))
