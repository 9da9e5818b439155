"""python manage.py audit_reports --input IN.jsonl --output OUT.jsonl [--reference REF.jsonl]

The batch audit (docs/audit.md): every report of IN through the text detectors (three-stage
correction, judge, contradiction, comparative when a line says "has_prior": false, and the
prior report checks when a line carries "prior_report", with optional "prior_date" and
"date") and the system combination with the site's settings; one output line per input
line. ``--reference`` replaces the site's reference library for this run with a ``{"id",
"report"}`` file (held in memory; a reference report with an input report's id is never used
for it). The work is in
workers/audit/batch.py; this command parses options and shows progress on stderr.
"""
from __future__ import annotations

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
        from workers.combine import CombinationConfig  # noqa: PLC0415 - defer scipy

        started = time.monotonic()
        try:
            records = batch.read_records(options["input"])
        except (RecordError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        quiet = options["verbosity"] < 1
        embedder = registry.text_embedder()
        if options["reference"]:
            # the site library's sentence vectors too: a reference file of reports written
            # from the same templates then needs few new embeddings
            sentences = text_library.library_sentences(embedder)
            with tqdm(total=0, desc="Embedding the reference", unit="sentence",
                      file=self.stderr._out, disable=quiet, leave=False) as bar:
                def step(done, total):
                    bar.total = total
                    bar.n = done
                    bar.refresh()
                try:
                    library = batch.reference_library(
                        options["reference"], sentences,
                        cache_dir=Path(settings.DATA_DIR) / "cache" / "reference-vectors",
                        progress=step)
                except (RecordError, OSError) as exc:
                    raise CommandError(str(exc)) from exc
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
        # counted and loaded now, so that the audit's figures are the audit's
        batch.count_library(library)
        extract_findings("No pneumothorax.")  # the rule engine loads spaCy on first use
        auditing = time.monotonic()
        with tqdm(total=len(records), desc="Auditing", unit="report", file=self.stderr._out,
                  disable=quiet) as bar:
            def progress(done, total):
                bar.update(done - bar.n)

            lines = batch.audit_records(records, library=library, config=config, embed=embed,
                                        llm=registry.llm(), extractor=registry.extractor(),
                                        k=options["neighbours"], progress=progress)
            count = batch.write_jsonl(options["output"], lines)
        if not quiet:
            now = time.monotonic()
            audit, total = now - auditing, now - started
            self.stderr.write(
                f"Audited {count} reports in {audit:.1f} s ({count / max(audit, 1e-9):.1f} "
                f"reports/s); {total:.1f} s in all with loading the models and the library "
                f"({count / max(total, 1e-9):.1f} reports/s); wrote {options['output']}")
