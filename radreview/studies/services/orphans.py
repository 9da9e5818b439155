"""Removing upload files that no study owns.

An upload writes its originals before the transaction that creates the study's rows commits
(the rows must never point at a missing file). A web worker killed in between leaves complete
files that no row references — patient images nobody can reach. Run at worker start; only
files older than ORPHAN_UPLOAD_SECONDS are touched, so an upload still in its transaction is
never swept.
"""
from __future__ import annotations

import logging
import time
from pathlib import Path

from django.conf import settings

from ..models import Image

logger = logging.getLogger(__name__)


def remove_unreferenced_originals(older_than: float | None = None) -> int:
    """Delete originals (and ``.partial-*`` leftovers) that no Image row names; return how many."""
    older_than = settings.ORPHAN_UPLOAD_SECONDS if older_than is None else older_than
    root = Path(settings.MEDIA_ROOT)
    cutoff = time.time() - older_than
    removed = 0
    for folder in root.glob("studies/*/originals"):
        candidates = [path for path in folder.iterdir()
                      if path.is_file() and path.stat().st_mtime <= cutoff]
        if not candidates:
            continue
        names = {path.relative_to(root).as_posix(): path for path in candidates}
        owned = set(Image.objects.filter(original__in=list(names))
                    .values_list("original", flat=True))
        for name, path in names.items():
            if name not in owned:
                path.unlink(missing_ok=True)
                removed += 1
    if removed:
        logger.warning("removed %s upload files that no study owns (an upload was interrupted)",
                       removed)
    return removed
