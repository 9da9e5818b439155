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

from radreview.studies import storage

ORIGINALS = "originals"
QUARANTINE = "quarantine"
PARTIAL_PREFIX = ".partial-"


def upload_folder(token: uuid.UUID, when: datetime) -> str:
    return f"{ORIGINALS}/{when:%Y}/{when:%m}/{token.hex}"


def _legacy_study(name: str) -> tuple[int, str] | None:
    """The study id's sort key of a legacy original's name (``studies/<id>/originals/<file>``),
    None for any other name."""
    parts = name.split("/")
    if len(parts) != 4 or parts[0] != "studies" or parts[2] != "originals":
        return None
    return (int(parts[1]), parts[1]) if parts[1].isdigit() else (2**63, parts[1])


def iter_originals() -> Iterator[str]:
    """Every file under the originals' folders, oldest studies first, as a stored name (the
    form ``Image.original`` stores), on the filesystem or in the bucket (a listing).
    Includes ``.partial-*`` leftovers."""
    legacy = [(key, name) for name in storage.list_files("studies")
              if (key := _legacy_study(name)) is not None]
    for _, name in sorted(legacy):
        yield name
    yield from storage.list_files(ORIGINALS)


def is_partial(name: str) -> bool:
    return name.rsplit("/", 1)[-1].startswith(PARTIAL_PREFIX)


def sample_originals(count: int) -> list[str]:
    """Up to ``count`` complete originals, oldest studies first."""
    return list(islice((name for name in iter_originals() if not is_partial(name)), count))
