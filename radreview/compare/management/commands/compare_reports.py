"""python manage.py compare_reports --input PAIRS.jsonl --output OUT.jsonl

Each candidate report against its reference, by workers/compare (workers/compare/batch.py holds
the work; this command parses options, shows progress on stderr and prints the summary table).
"""
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from workers.compare.batch import compare_file, count_pairs
from workers.jsonl import JsonlError


class Command(BaseCommand):
    help = ("Compare candidate reports with references (JSONL {id, candidate, reference}): "
            "each candidate's errors in six categories, explained, and a score.")

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True,
                            help="JSONL file of {id, candidate, reference} lines")
        parser.add_argument("--output", required=True, help="JSONL file to write")
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")

    def handle(self, *args, **options):
        try:
            total = count_pairs(options["input"])
            with tqdm(total=total, desc="Comparing", unit="pair", file=self.stderr._out,
                      disable=options["no_progress"]) as bar:
                summary = compare_file(options["input"], options["output"], progress=bar.update)
        except (JsonlError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(summary.table())
        self.stdout.write(f"wrote {summary.pairs} comparisons to {options['output']}")
