"""Counts over a library, kept on disk between runs.

What the detectors count over a whole library (its words and phrases, the restoration's
context model, the findings it states and denies) takes seconds to build and depends only on
the library's texts, in order, and on the code that counts them. A run keeps what it counted
in a file named after both (``library_key``), so the next run over the same library reads it
in a tenth of a second; a changed library or changed code gives another name, and so a new
count. Only the library's own texts are counted there, never the reports being audited.

A file that cannot be read back (cut short, from other code, not a pickle) is ignored, and
the caller counts again and writes it anew. Files are written under a temporary name and
renamed, so a reader never sees half a file; the newest ``KEEP`` files stay, older go.
"""
from __future__ import annotations

import hashlib
import logging
import pickle
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from workers.atomic import replacing

log = logging.getLogger(__name__)

KEEP = 4
SUFFIX = ".counts.pickle"
# the code whose output is kept: the whole workers package (a change anywhere may change a
# count, and hashing 1.6 MB costs a few milliseconds)
CODE_ROOT = Path(__file__).resolve().parents[1]


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    digest = hashlib.sha256(f"python {sys.version_info[:2]}".encode())
    for path in sorted(CODE_ROOT.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            digest.update(str(path.relative_to(CODE_ROOT)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def library_key(texts: Iterable[str]) -> str:
    """The file stem of a library's counts: its texts in order, and the counting code."""
    digest = hashlib.sha256()
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little") + data)
    return f"library-{digest.hexdigest()[:24]}-code-{code_fingerprint()}"


def load(cache_dir: str | Path, key: str) -> object | None:
    """What was kept under ``key``, or None (no file, or one that cannot be read back)."""
    path = Path(cache_dir) / f"{key}{SUFFIX}"
    try:
        with path.open("rb") as f:
            return pickle.load(f)  # noqa: S301 - our own file under the data dir
    except FileNotFoundError:
        return None
    except Exception as exc:  # noqa: BLE001 - any damage means: count again
        log.warning("ignoring the library counts in %s (%s); counting again", path.name,
                    type(exc).__name__)
        return None


def save(cache_dir: str | Path, key: str, value: object) -> None:
    """Keep ``value`` under ``key`` (atomically); a failure to write only costs a recount."""
    directory = Path(cache_dir)
    path = directory / f"{key}{SUFFIX}"
    try:
        with replacing(path) as partial, partial.open("wb") as f:
            pickle.dump(value, f, protocol=pickle.HIGHEST_PROTOCOL)
        _prune(directory, path)
    except OSError as exc:
        log.warning("could not keep the library counts in %s: %s", directory, exc)


def _prune(directory: Path, newest: Path) -> None:
    """Remove all but the ``KEEP`` newest files (``newest`` always stays: times can tie)."""
    others = sorted((p for p in directory.glob(f"*{SUFFIX}") if p != newest),
                    key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in others[KEEP - 1:]:
        old.unlink(missing_ok=True)
