"""Compare many report pairs: JSONL in, JSONL out, and a summary by category.

Input lines: ``{"id", "candidate", "reference"}`` (other fields are ignored). Output lines:
``{"id", "score", "errors": [{"category", "significant", "candidate_sentence",
"reference_sentence", "explanation"}]}`` in input order. The output is written only when every
line compared (workers/jsonl.py), so a bad line never leaves half a file; its message names the
file and the line.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workers.jsonl import JsonlError, numbered_jsonl, write_jsonl

from . import categories as cat
from .compare import Comparison, compare_reports

#: Longer texts are no report: a line holding one is refused rather than read for minutes.
MAX_REPORT_CHARS = 100_000


class PairInputError(JsonlError):
    """A line that is not a pair of reports; the message names the file and the line."""


@dataclass
class Summary:
    pairs: int = 0
    with_errors: int = 0
    with_significant: int = 0
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(cat.KEYS, 0))
    significant: dict[str, int] = field(default_factory=lambda: dict.fromkeys(cat.KEYS, 0))

    def add(self, comparison: Comparison) -> None:
        self.pairs += 1
        self.with_errors += bool(comparison.errors)
        self.with_significant += bool(comparison.significant)
        for key, count in comparison.counts().items():
            self.errors[key] += count
        for key, count in comparison.counts(significant_only=True).items():
            self.significant[key] += count

    def table(self) -> str:
        """The summary as a plain-text table: errors by category, all and significant, in
        total and per pair."""
        per = max(self.pairs, 1)
        lines = [f"{'category':<28}{'errors':>8}{'per pair':>10}{'significant':>13}"
                 f"{'per pair':>10}"]
        for c in cat.CATEGORIES:
            lines.append(f"{c.label:<28}{self.errors[c.key]:>8}{self.errors[c.key] / per:>10.3f}"
                         f"{self.significant[c.key]:>13}{self.significant[c.key] / per:>10.3f}")
        total, significant = sum(self.errors.values()), sum(self.significant.values())
        lines.append(f"{'all':<28}{total:>8}{total / per:>10.3f}{significant:>13}"
                     f"{significant / per:>10.3f}")
        lines.append(f"{self.pairs} pairs: {self.with_errors} with an error, "
                     f"{self.with_significant} with a significant one")
        return "\n".join(lines)


def pair_of(record: dict[str, Any], where: str) -> tuple[Any, str, str]:
    """(id, candidate, reference) of one input record, checked."""
    texts = []
    for name in ("candidate", "reference"):
        value = record.get(name)
        if not isinstance(value, str):
            raise PairInputError(f"{where}: {name!r} must be a report text")
        if len(value) > MAX_REPORT_CHARS:
            raise PairInputError(f"{where}: {name!r} is longer than {MAX_REPORT_CHARS} "
                                 "characters")
        texts.append(value)
    return record.get("id"), texts[0], texts[1]


def compare_records(path: str | Path, summary: Summary, *,
                    lines: Iterable[str] | None = None,
                    progress: Callable[[int], None] | None = None) -> Iterator[dict[str, Any]]:
    """The output record of every pair of ``path`` (or of ``lines``), in order; ``summary``
    counts them and ``progress`` hears of each."""
    for number, record in numbered_jsonl(path, lines=lines):
        pair_id, candidate, reference = pair_of(record, f"{path}:{number}")
        comparison = compare_reports(candidate, reference)
        summary.add(comparison)
        if progress is not None:
            progress(1)
        yield {"id": pair_id, **comparison.to_dict()}


def compare_file(input_path: str | Path, output_path: str | Path, *,
                 progress: Callable[[int], None] | None = None) -> Summary:
    """Compare every pair of ``input_path`` into ``output_path``; the summary of the run."""
    summary = Summary()
    write_jsonl(output_path, compare_records(input_path, summary, progress=progress))
    return summary


def count_pairs(path: str | Path) -> int:
    """The non-blank lines of ``path``: the progress bar's length, read before the run."""
    with Path(path).open(encoding="utf-8") as source:
        return sum(1 for line in source if line.strip())
