"""The one JSONL reader and writer for batch commands and imports.

``read_jsonl(path)`` yields one dict per non-blank line; a line that is not a JSON object raises
``JsonlError`` naming the file and the line ("in.jsonl:12: bad JSON (...)"), so every command
reports a bad input the same way. ``numbered_jsonl`` gives the line numbers too, for callers that
check fields and name the line themselves. ``write_jsonl(path, records)`` writes a temporary
file beside ``path`` and moves it into place only when every record is written, so a failed run
never leaves a half-written output.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from workers.errors import WorkerError


class JsonlError(WorkerError, ValueError):
    """A bad line of a JSONL file; the message names the file and the line."""


def numbered_jsonl(path: str | Path, *, lines: Iterable[str] | None = None
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for every non-blank line of ``path`` (or of ``lines``, reported
    as ``path``)."""
    source = lines if lines is not None else Path(path).open(encoding="utf-8")
    try:
        for number, line in enumerate(source, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise JsonlError(f"{path}:{number}: bad JSON ({exc.msg} at column "
                                 f"{exc.colno})") from None
            if not isinstance(record, dict):
                raise JsonlError(f"{path}:{number}: expected a JSON object, got "
                                 f"{type(record).__name__}")
            yield number, record
    finally:
        if lines is None:
            source.close()


def read_jsonl(path: str | Path, *, lines: Iterable[str] | None = None
               ) -> Iterator[dict[str, Any]]:
    """Every record of ``path``; ``JsonlError`` names the file and line of a bad one."""
    for _, record in numbered_jsonl(path, lines=lines):
        yield record


def write_jsonl(path: str | Path, records: Iterable[dict[str, Any]]) -> int:
    """Write ``records`` one per line to ``path``, atomically; returns how many were written.
    An exception while writing (or while ``records`` produces them) leaves ``path`` as it was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=target.parent, delete=False,
                                     prefix=f".{target.name}.", suffix=".part") as tmp:
        try:
            count = 0
            for record in records:
                tmp.write(json.dumps(record, ensure_ascii=False) + "\n")
                count += 1
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, target)
    return count
