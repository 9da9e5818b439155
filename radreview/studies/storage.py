"""Files under MEDIA_ROOT, written so that a crash never leaves half a file behind."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.conf import settings


def media_path(relative: str) -> Path:
    path = (Path(settings.MEDIA_ROOT) / relative).resolve()
    if Path(settings.MEDIA_ROOT).resolve() not in path.parents:
        raise ValueError("media path escapes MEDIA_ROOT")
    return path


def write_media_atomically(relative: str, data: bytes) -> str:
    """Write ``data`` to MEDIA_ROOT/relative via a temporary file and a rename; return ``relative``."""
    target = media_path(relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o640)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return relative
