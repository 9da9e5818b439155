"""Batch labeling: JSONL reports in, JSONL CheXpert labels and findings out.

Input lines: ``{"id": ..., "report": "..."}``; other fields are ignored. A line without
"report" but with "findings" / "impression" gets a report composed of them
("FINDINGS: ...\\nIMPRESSION: ..."). Output lines:
``{"id", "labels": {<14 CheXpert labels>: 1|0|-1|null}, "findings": [{"sentence", "observation",
"status", "laterality", "severity", "location"}, ...], "image_sentences": N}`` - the format of
../shared/bench/score_findings.py (which ignores the extra key). ``image_sentences`` counts the
sentences in sections that describe the images; 0 means nothing of the report could be read
(only an indication, a comparison, ...), and then "No Finding" is null, never 1. Blank lines are
skipped; a line that is not a JSON object stops the run with an error naming the file and line.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from typing import IO, Any

from workers.jsonl import JsonlError, read_jsonl, write_jsonl
from workers.nlp.findings import extract_findings
from workers.nlp.labels import chexpert_labels
from workers.nlp.sections import parse_report

PROGRESS_EVERY = 500


class BatchInputError(JsonlError):
    """A line of the input that cannot be labelled; the message names the line."""


def compose_report(record: dict[str, Any]) -> str:
    """The report text of one input record."""
    report = record.get("report")
    if isinstance(report, str):
        return report
    parts = []
    for name in ("findings", "impression"):
        value = record.get(name)
        if isinstance(value, str) and value.strip():
            parts.append(f"{name.upper()}: {value.strip()}")
    return "\n".join(parts)


def label_record(record: dict[str, Any], *, devices_are_findings: bool = False) -> dict[str, Any]:
    parsed = parse_report(compose_report(record))
    findings = extract_findings(parsed)
    labels = chexpert_labels(findings, devices_are_findings=devices_are_findings)
    if not parsed.reads_images:
        labels["No Finding"] = None  # nothing was read: not a normal study, an unread one
    return {
        "id": record.get("id"),
        "labels": labels,
        "findings": [{"sentence": f.sentence_index, "observation": f.observation,
                      "status": f.status, "laterality": f.laterality, "severity": f.severity,
                      "location": f.location} for f in findings if not f.implied],
        "image_sentences": len(parsed.image_sentences),
    }


def read_records(lines: Iterable[str], source: str = "<input>") -> Iterator[dict[str, Any]]:
    try:
        yield from read_jsonl(source, lines=lines)
    except JsonlError as exc:
        raise BatchInputError(str(exc)) from None


def label_records(lines: Iterable[str], *, source: str = "<input>",
                  progress: IO[str] | None = sys.stderr, devices_are_findings: bool = False
                  ) -> Iterator[dict[str, Any]]:
    """The output record of every input record of ``lines``, in order. Progress goes to
    ``progress`` every ``PROGRESS_EVERY`` reports (None: silent)."""
    count = 0
    started = time.perf_counter()
    for record in read_records(lines, source):
        yield label_record(record, devices_are_findings=devices_are_findings)
        count += 1
        if progress is not None and count % PROGRESS_EVERY == 0:
            rate = count / max(time.perf_counter() - started, 1e-9)
            progress.write(f"labelled {count} reports ({rate:.0f}/s)\n")
            progress.flush()
    if progress is not None and count >= PROGRESS_EVERY:
        progress.write(f"labelled {count} reports in {time.perf_counter() - started:.1f} s\n")


def label_stream(lines: Iterable[str], out: IO[str], *, source: str = "<input>",
                 progress: IO[str] | None = sys.stderr, devices_are_findings: bool = False
                 ) -> int:
    """Label every record of ``lines`` into ``out``; returns the number of reports labelled."""
    count = 0
    for labelled in label_records(lines, source=source, progress=progress,
                                  devices_are_findings=devices_are_findings):
        out.write(json.dumps(labelled) + "\n")
        count += 1
    return count


def label_file(input_path: str, output_path: str, *, progress: IO[str] | None = sys.stderr,
               devices_are_findings: bool = False) -> int:
    """Label the JSONL file ``input_path`` into ``output_path`` (written only if the whole input
    is valid, so a bad line never leaves a half-written output)."""
    with open(input_path, encoding="utf-8") as src:
        return write_jsonl(output_path, label_records(
            src, source=input_path, progress=progress, devices_are_findings=devices_are_findings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Label chest X-ray reports with CheXpert-14.")
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--devices-are-findings", action="store_true",
                        help="a support device also makes 'No Finding' 0")
    args = parser.parse_args(argv)
    try:
        label_file(args.input, args.output, devices_are_findings=args.devices_are_findings)
    except BatchInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
