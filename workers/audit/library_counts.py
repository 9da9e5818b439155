"""What the audit's detectors count over a whole library (its sentences, words and phrases,
the restoration's context model, the findings it states and denies), brought in before the
first report: read back from a directory of kept counts (workers.library.kept) when this
library and this code counted them before, else counted now and kept there.

Both callers go through here: the batch audit once per run, and the worker's audit stage once
per library version per process (a library object that already has its counts is not looked
up again), so neither counts a library that any earlier run or process counted.
"""
from __future__ import annotations

import weakref
from pathlib import Path

from workers.correction.restore import ContextModel, context_model, keep_context_model
from workers.library import kept
from workers.library.stats import LibraryStats
from workers.library.text import TextLibrary
from workers.rules.denials import FindingCounts, finding_counts, keep_finding_counts

# the library objects that have their counts in this process (counted or read back here)
_COUNTED: weakref.WeakSet = weakref.WeakSet()


def count_library(library: TextLibrary, cache_dir: str | Path | None = None) -> bool:
    """Give ``library`` its counts now, so that the first report does not pay for them (and a
    timed audit times the audit). With ``cache_dir`` they are read from there when kept for
    this library's texts and this code, else counted and kept there. True when nothing was
    counted: read back, or the library had them already."""
    if library in _COUNTED:
        return True
    key = kept.library_key(e.text for e in library.entries) if cache_dir is not None else None
    found = kept.load(cache_dir, key) if key is not None else None
    read = _counts_of(found, len(library))
    if read:
        stats, model, counts = found
        library.stats = stats
        keep_context_model(library, model)
        keep_finding_counts(library, counts)
    else:
        counted = (library.stats, context_model(library), finding_counts(library))
        if key is not None:
            kept.save(cache_dir, key, counted)
    _COUNTED.add(library)
    return read


def _counts_of(found, n_reports: int) -> bool:
    """``found`` is what ``count_library`` keeps, for a library of ``n_reports``."""
    if not (isinstance(found, tuple) and len(found) == 3):
        return False
    stats, model, counts = found
    return (isinstance(stats, LibraryStats) and isinstance(model, ContextModel)
            and isinstance(counts, FindingCounts) and stats.n_reports == n_reports
            and len(model.per_report) == n_reports)
