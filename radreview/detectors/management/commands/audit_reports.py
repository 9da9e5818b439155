"""python manage.py audit_reports --input IN.jsonl --output OUT.jsonl [--reference REF.jsonl]

The batch audit (docs/audit.md): every report of IN through the text detectors (three-stage
correction, judge, contradiction, comparative when a line says "has_prior": false, and the
prior report checks when a line carries "prior_report", with optional "prior_date" and
"date") and the system combination with the site's settings; one output line per input
line. ``--reference`` replaces the site's reference library for this run with a ``{"id",
"report"}`` file (held in memory; a reference report with an input report's id is never used
for it). The work is in workers/audit/batch.py; this command parses options, shows progress
on stderr and ends with its figures: reports per second after start-up (the library and its
counts included) and with it, CPU time per report, and each phase's seconds. The library's
counts are kept in ``DATA_DIR/cache/library-counts/`` (workers/library/kept.py), so a run over
a library counted before reads them back instead of counting again.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from workers.backends import registry
from workers.detectors import DETECTORS
from workers.library.records import RecordError
from workers.nlp import extract_findings


class Command(BaseCommand):
    help = "Audit reports for errors: detect, localize, correct, and list every detection."
    # File in, file out (the site's combination settings aside): the system checks would
    # import the URLconf and with it every view and what the views import, for no page.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True,
                            help='JSONL of {"id", "report"} (optional "prior_report", '
                                 '"prior_date", "date")')
        parser.add_argument("--output", required=True, help="JSONL to write")
        parser.add_argument("--reference", help='JSONL of {"id", "report"} to use as the '
                                                "reference library for this run")
        parser.add_argument("--neighbours", type=int, default=5,
                            help="similar reference reports retrieved per report (default 5)")

    def handle(self, *args, **options):

        from radreview.detectors.services import combination_config  # noqa: PLC0415 - defer faiss/pydicom/pynetdicom/scipy
        from radreview.library import text_library  # noqa: PLC0415 - defer faiss
        from workers.audit import batch  # noqa: PLC0415 - defer faiss/scipy
        from workers.audit.library_counts import count_library  # noqa: PLC0415 - defer scipy
        from workers.combine import CombinationConfig  # noqa: PLC0415 - defer scipy

        clock = Phases()
        try:
            records = batch.read_records(options["input"])
        except (RecordError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        quiet = options["verbosity"] < 1
        embedder = registry.text_embedder()
        extract_findings("No pneumothorax.")  # the rule engine loads spaCy on first use
        llm, extractor = registry.llm(), registry.extractor()
        clock.lap("start-up")
        if options["reference"]:
            library = self._reference(options["reference"], embedder, quiet)
        else:
            library = text_library.load_text_library()
            if not len(library) and not quiet:
                self.stderr.write("The reference library is empty (run python manage.py "
                                  "import_reference); auditing without similar reports.")
        config = combination_config()
        if config is None:
            if not quiet:
                self.stderr.write("The site's system combination is switched off; the batch "
                                  "combines with the default settings.")
            config = CombinationConfig(order=tuple(DETECTORS))
        embed = library.sentence_vectors.embed
        clock.lap("library")
        # counted now (or read back from the last run over the same library), so that the
        # first reports do not wait for it
        kept = count_library(library, text_library.counts_dir())
        clock.lap("library counts (read back)" if kept else "library counts (counted)")
        with tqdm(total=len(records), desc="Auditing", unit="report", file=self.stderr._out,
                  disable=quiet) as bar:
            def progress(done, total):
                bar.update(done - bar.n)

            lines = batch.audit_records(records, library=library, config=config, embed=embed,
                                        llm=llm, extractor=extractor, k=options["neighbours"],
                                        progress=progress, timings=clock.seconds)
            count = batch.write_jsonl(options["output"], lines)
        clock.lap("written")
        if not quiet:
            self.stderr.write(f"Wrote {options['output']}\n{clock.summary(count)}")

    def _reference(self, path: str, embedder, quiet: bool):
        """The library of a reference file, its sentence vectors kept under the data dir."""
        from radreview.library import text_library  # noqa: PLC0415 - defer faiss
        from workers.audit import batch  # noqa: PLC0415 - defer faiss/scipy

        # the site library's sentence vectors too: a reference file of reports written from
        # the same templates then needs few new embeddings
        sentences = text_library.library_sentences(embedder)
        with tqdm(total=0, desc="Embedding the reference", unit="sentence",
                  file=self.stderr._out, disable=quiet, leave=False) as bar:
            def step(done, total):
                bar.total = total
                bar.n = done
                bar.refresh()
            try:
                return batch.reference_library(
                    path, sentences,
                    cache_dir=Path(settings.DATA_DIR) / "cache" / "reference-vectors",
                    progress=step)
            except (RecordError, OSError) as exc:
                raise CommandError(str(exc)) from exc


class Phases:
    """Wall and CPU seconds of the command's phases, for the figures it prints at the end."""

    AUDIT = ("sentences", "detectors", "explanations", "combination")

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.started = self.last = time.perf_counter()
        self.cpu_started = time.process_time()
        self.cpu_after_startup = self.cpu_started

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        # the audit's own phases were timed inside it; "written" is what is left over
        inside = sum(self.seconds.get(p, 0.0) for p in self.AUDIT) if name == "written" else 0
        self.seconds[name] = now - self.last - inside
        self.last = now
        if name == "start-up":
            self.cpu_after_startup = time.process_time()

    def summary(self, count: int) -> str:
        total = self.last - self.started
        startup = self.seconds.get("start-up", 0.0)
        work, cpu = total - startup, time.process_time() - self.cpu_after_startup
        phases = "; ".join(f"{name} {seconds:.2f} s" for name, seconds in self.seconds.items())
        return (f"Audited {count} reports in {work:.1f} s after start-up "
                f"({count / max(work, 1e-9):.1f} reports/s, library included; "
                f"{1000 * cpu / max(count, 1):.1f} ms CPU per report, all threads), "
                f"{total:.1f} s with start-up ({count / max(total, 1e-9):.1f} reports/s); "
                f"load average {os.getloadavg()[0]:.1f}.\nPhases: {phases}")
