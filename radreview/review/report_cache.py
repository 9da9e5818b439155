"""A per-process memory of what a reviewable report's review reads and never changes.

Once a study is ready for review its pipeline is over: its audited report, the report's
sentences, detections and their sources, and the samples are never written again (a stage only
runs on a queued or processing study, and a study is ready only when every job is done). What
the review builds from them — the flags, their sources' views, the confidence figures — is the
same for every decision, so it is kept here instead of being read and built again on each one
(docs/operations.md, "Load"). Only decision-dependent parts (the state rows, the history) are
read per request. Keyed by the report's id and creation time (ids are reused after a rolled-back
test transaction on SQLite; a creation time is not), bounded, safe to share between a process's
threads: entries are built whole and only read.
"""
from __future__ import annotations

from typing import Any

from .memo import Memo

# Reports kept per process: a department's open studies, a few hundred KiB each at most.
_reports = Memo(limit=256)


def key_of(report) -> tuple:
    return (report.pk, report.created_at)


def get(report) -> Any | None:
    return _reports.get(key_of(report))


def put(report, value: Any) -> None:
    _reports.put(key_of(report), value)


def clear() -> None:
    _reports.clear()
