"""Library records, the benchmark's text normalisation, and ``{"id", "report"}`` JSONL files."""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from workers.jsonl import JsonlError, numbered_jsonl
from workers.nlp import parse_report

_BR_RE = re.compile(r"<\s*br\s*/?\s*>", re.IGNORECASE)
# "normal.Calcified" -> "normal. Calcified"; decimals ("2.5") and "e.g." are left alone.
_GLUED_PERIOD_RE = re.compile(r"(?<=[a-z])\.(?=[A-Z])")
_SPACE_RE = re.compile(r"\s+")


class RecordError(JsonlError):
    """A bad line in an input file; the message names the file and the line."""


@dataclass(frozen=True)
class LibraryReport:
    """One reference report: ``external_id`` is its id in its source ("iu-5")."""

    external_id: str
    report: str
    findings: str = ""
    impression: str = ""


def normalise_text(text: str | None) -> str:
    """The IU benchmark's normalisation: ``<BR>`` becomes a space, a period glued to the next
    capitalised word gets a space, runs of whitespace become one space."""
    if not text:
        return ""
    text = _BR_RE.sub(" ", text)
    text = _GLUED_PERIOD_RE.sub(". ", text)
    return _SPACE_RE.sub(" ", text).strip()


def compose_report(findings: str, impression: str) -> str:
    """``FINDINGS: ...`` and ``IMPRESSION: ...`` lines; an empty section has no line."""
    lines = []
    if findings:
        lines.append(f"FINDINGS: {findings}")
    if impression:
        lines.append(f"IMPRESSION: {impression}")
    return "\n".join(lines)


def _sections(report: str) -> tuple[str, str]:

    parsed = parse_report(report)
    return parsed.section_text("findings"), parsed.section_text("impression")


def read_jsonl_reports(path: str | Path, *, lines: Iterable[str] | None = None
                       ) -> Iterator[LibraryReport]:
    """``LibraryReport`` per ``{"id", "report"}`` line of ``path`` (blank lines skipped).

    A line that is not JSON, or lacks a string "id" or "report", raises ``RecordError``
    naming ``path:line``. An id seen twice is an error too: ids name library reports.
    """
    seen: set[str] = set()
    try:
        for number, record in numbered_jsonl(path, lines=lines):
            if not isinstance(record.get("report"), str) \
                    or not isinstance(record.get("id"), (str, int)):
                raise RecordError(f'{path}:{number}: expected an object with a string "id" and '
                                  f'a string "report"')
            external_id = str(record["id"])
            if external_id in seen:
                raise RecordError(f"{path}:{number}: id {external_id!r} appears twice")
            seen.add(external_id)
            findings, impression = _sections(record["report"])
            yield LibraryReport(external_id, record["report"], findings, impression)
    except JsonlError as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(str(exc)) from None
