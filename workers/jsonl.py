"""The one JSONL reader and writer for batch commands and imports.

``read_jsonl(path)`` yields one dict per non-blank line; a line that is not a JSON object, or
that nests lists and objects deeper than MAX_DEPTH levels, raises ``JsonlError`` naming the file
and the line ("in.jsonl:12: bad JSON (...)"), so every command reports a bad input the same way.
``numbered_jsonl`` gives the line numbers too, for callers that check fields and name the line
themselves; ``parse_record`` is the check of one line, for readers that walk the lines
themselves. ``load_json`` is the bounded ``json.loads`` under all of them and under the API's
JSON bodies (radreview/security/json_limits.py): Python's decoder raises RecursionError near a
depth of 1,000, which no caller expects, and a value that decoded just below it can still
exhaust the stack of whatever walks it next. ``write_jsonl(path, records)`` writes a temporary
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

#: Lists and objects nested deeper than this are refused; no input we take needs more than a few.
MAX_DEPTH = 32


class JsonlError(WorkerError, ValueError):
    """A bad line of a JSONL file; the message names the file and the line."""


class JsonDepthError(ValueError):
    """JSON nested deeper than the limit; the message says so and names the limit."""


def depth_of(value: Any) -> int:
    """How deeply lists and objects nest in ``value`` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in item)
    return deepest


def load_json(text: str | bytes, *, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)`` that raises ``JsonDepthError`` for nesting deeper than
    ``max_depth``, never RecursionError; bad JSON raises ``json.JSONDecodeError`` as usual."""
    too_deep = JsonDepthError(f"the JSON is nested too deeply (the limit is {max_depth} levels)")
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise too_deep from None
    if depth_of(value) > max_depth:
        raise too_deep
    return value


def parse_record(line: str, where: str) -> dict[str, Any]:
    """One JSONL line as a JSON object; ``JsonlError`` starts with ``where`` (file:line)."""
    try:
        record = load_json(line)
    except json.JSONDecodeError as exc:
        raise JsonlError(f"{where}: bad JSON ({exc.msg} at column {exc.colno})") from None
    except JsonDepthError as exc:
        raise JsonlError(f"{where}: {exc}") from None
    if not isinstance(record, dict):
        raise JsonlError(f"{where}: expected a JSON object, got {type(record).__name__}")
    return record


def numbered_jsonl(path: str | Path, *, lines: Iterable[str] | None = None
                   ) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) for every non-blank line of ``path`` (or of ``lines``, reported
    as ``path``)."""
    source = lines if lines is not None else Path(path).open(encoding="utf-8")
    try:
        for number, line in enumerate(source, 1):
            if line.strip():
                yield number, parse_record(line, f"{path}:{number}")
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
