"""The batch audit behind ``manage.py audit_reports`` (plain Python, testable without Django).

Input lines ``{"id", "report"}`` (a record without "report" has one composed from "findings"
and "impression"; optional "has_prior", and "prior_report" with "prior_date" and "date": the
prior report the comparison claims are checked against); output lines, in input order::

    {"id", "has_error": bool, "error_sentence": str | null, "corrected_report": str | null,
     "image_sentences": int,
     "detections": [combined detection + "flagged" + "sources": [raw detections]]}

``has_error``: the system combination flags a sentence. ``error_sentence``: the flagged
sentence with the highest combined confidence (the most harmful on a tie). ``corrected_report``:
the report with that sentence replaced by its suggestion (the correction detector's when it
proposes one for that sentence). ``image_sentences``: how many sentences describe the images;
0 means none did (only an indication, a comparison, ...), so nothing was audited and
``has_error: false`` says nothing about the images. The whole input is read and checked before
anything is written, so a bad line stops the run with ``FILE:LINE: ...`` and leaves no output
behind.
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from workers.audit.text import TextAudit, audit_text
from workers.combine import CombinationConfig, combine, compared_explanations
from workers.correction.three_stage import DETECTOR as CORRECTION
from workers.correction.three_stage import apply_suggestion
from workers.jsonl import JsonlError, numbered_jsonl
from workers.jsonl import write_jsonl as write_jsonl  # the one writer, importable from here
from workers.library.records import RecordError, compose_report, read_jsonl_reports
from workers.library.text import LibraryEntry, TextLibrary
from workers.library.vectors import SentenceVectors, report_sentences, vector_file_stem
from workers.study.context import DEFAULT_NEIGHBOURS
from workers.types import Harm

Progress = Callable[[int, int], None]
CHUNK = 64


def read_records(path: str | Path) -> list[dict]:
    """Every record of a JSONL input, checked; ``RecordError`` names the bad line."""
    records = []
    seen: set[str] = set()
    try:
        for number, record in numbered_jsonl(path):
            if "id" not in record:
                raise RecordError(f'{path}:{number}: expected an object with "id" and "report"')
            if not isinstance(record.get("report"), str):
                findings, impression = record.get("findings"), record.get("impression")
                if not (isinstance(findings, str) or isinstance(impression, str)):
                    raise RecordError(f'{path}:{number}: "report" must be a string')
                record["report"] = compose_report(findings or "", impression or "")
            if str(record["id"]) in seen:
                raise RecordError(f"{path}:{number}: id {record['id']!r} appears twice")
            seen.add(str(record["id"]))
            records.append(record)
    except JsonlError as exc:
        if isinstance(exc, RecordError):
            raise
        raise RecordError(str(exc)) from None
    return records


def reference_library(path: str | Path, sentence_vectors: SentenceVectors, *,
                      cache_dir: str | Path | None = None,
                      progress: Progress | None = None) -> TextLibrary:
    """A library held in memory from a ``{"id", "report"}`` file (line numbers as row ids).

    With ``cache_dir``, the library's sentence vectors are kept in a file named after the
    reference file's content and the embedder, so the next run with the same file skips the
    embedding. Only library sentences go there, never the reports being audited.
    """
    path = Path(path)
    reports = list(read_jsonl_reports(path))
    entries = [LibraryEntry(i, r.external_id, r.report) for i, r in enumerate(reports, 1)]
    cache = None
    if cache_dir is not None:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        stem = vector_file_stem(sentence_vectors.embedder)
        cache = Path(cache_dir) / f"reference-{digest}-{stem}.npz"
        sentence_vectors.load(cache)
    before = len(sentence_vectors)
    library = TextLibrary.build(entries, sentence_vectors, progress)
    if cache is not None and len(sentence_vectors) > before:
        sentence_vectors.save(cache, (s for e in entries for s in report_sentences(e.text)))
    return library


def _primary(results):
    flagged = [r for r in results if r.flagged]
    if not flagged:
        return None
    return max(flagged, key=lambda r: (r.detection.confidence, Harm(r.detection.harm).rank,
                                       -r.detection.sentence_index))


def _text_field(record: dict, key: str) -> str | None:
    value = record.get(key)
    return value if isinstance(value, str) and value.strip() else None


def _audit(record: dict, library: TextLibrary | None, llm, extractor, k: int,
           neighbours: list | None = None) -> TextAudit:
    has_prior = record.get("has_prior")
    return audit_text(record["report"], models={"llm": llm, "extractor": extractor},
                      library=library, external_id=str(record["id"]),
                      has_prior=has_prior if isinstance(has_prior, bool) else None,
                      k=k, neighbours=neighbours,
                      prior_report=_text_field(record, "prior_report"),
                      prior_date=_text_field(record, "prior_date"),
                      date=_text_field(record, "date"))


def output_line(record: dict, audit: TextAudit, config: CombinationConfig, embed) -> dict:
    """The output line of one audited record (combination included)."""
    text = record["report"]
    outputs = audit.outputs()
    sentences = {s.index: s.text for s in audit.context.parsed.sentences}
    results = combine(outputs, config, embed, sentences)
    by_detector = {o.detector: o.detections for o in outputs}
    primary = _primary(results)
    line = {"id": record["id"], "has_error": primary is not None, "error_sentence": None,
            "corrected_report": None,
            "image_sentences": len(audit.context.parsed.image_sentences)}
    if primary is not None:
        index = primary.detection.sentence_index
        sentence = audit.context.sentence(index)
        line["error_sentence"] = sentence.text
        # the correction's own choice (its stage 2 ranks it first) speaks for its sentence
        correction = next(iter(audit.detections.get(CORRECTION, [])), None)
        if (correction is not None and correction.sentence_index == index
                and correction.suggestion is not None):
            suggestion = correction.suggestion
        else:
            suggestion = primary.detection.suggestion
        line["corrected_report"] = (apply_suggestion(text, sentence.start, sentence.end,
                                                     suggestion)
                                    if suggestion is not None else text)
    line["detections"] = [
        {**r.detection.to_dict(), "flagged": r.flagged,
         "sources": [by_detector[name][j].to_dict() for name, j in r.members]}
        for r in results
    ]
    return line


def audit_records(records: Iterable[dict], *, library: TextLibrary | None,
                  config: CombinationConfig, embed, llm=None, extractor=None,
                  k: int = DEFAULT_NEIGHBOURS, progress: Progress | None = None,
                  chunk: int = CHUNK, timings: dict[str, float] | None = None):
    """Output lines, one per record, in order.

    The input's sentences are embedded in one batch first; then records go through the
    detectors in chunks, each chunk's similar reports retrieved with one search; then the
    explanations all the system combinations compare are embedded in one batch (a sentence
    model and FAISS are many times faster on a batch than on one text at a time). ``embed``
    must keep the vectors it made (``SentenceVectors.embed``), or that batch is thrown away.
    ``timings`` receives the seconds of each phase: "sentences" (embedding the input),
    "detectors", "explanations" (embedding them), "combination" (with whatever the caller
    does with each line).
    """
    clock = _Clock(timings)
    records = list(records)
    searching = library is not None and len(library) > 0
    if searching:
        # every new sentence of the input in one batch: the model sorts a batch by length, so
        # a few long sentences do not pad many short ones (several times faster than chunks)
        library.sentence_vectors.embed([s for r in records for s in report_sentences(r["report"])])
    clock.lap("sentences")
    audits = []
    for first in range(0, len(records), chunk):
        part = records[first:first + chunk]
        found = [None] * len(part)
        if searching:
            found = library.neighbours_many([r["report"] for r in part], k,
                                            [str(r["id"]) for r in part])
        audits += [_audit(record, library, llm, extractor, k, neighbours)
                   for record, neighbours in zip(part, found, strict=True)]
    clock.lap("detectors")
    # the explanations every combination will compare, in one model call for the whole input
    # (``embed`` keeps vectors: SentenceVectors.embed): one batch sorted by length costs the
    # model less than one per chunk (fewer calls, less padding)
    embed([text for audit in audits
           for text in compared_explanations(audit.outputs(), config, sorted(
               s.index for s in audit.context.parsed.sentences))])
    clock.lap("explanations")
    for number, (record, audit) in enumerate(zip(records, audits, strict=True), 1):
        yield output_line(record, audit, config, embed)
        if progress:
            progress(number, len(records))
    clock.lap("combination")


class _Clock:
    """Adds the seconds since its last lap to ``timings[name]`` (nothing when None)."""

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + now - self.last
        self.last = now
