"""python manage.py label_reports --input IN.jsonl --output OUT.jsonl

CheXpert-14 labels and findings for every report of a JSONL file, by the built-in language
engine (workers/nlp/batch.py holds the work; this command only parses arguments). It runs
without Django's system checks (it serves nothing and reads no table).
"""
from django.core.management.base import BaseCommand, CommandError

from workers.nlp.batch import BatchInputError, label_file


class Command(BaseCommand):
    help = "Label chest X-ray reports (JSONL {id, report}) with the 14 CheXpert observations."
    # File in, file out: no database, no page. The system checks would import the URLconf and
    # with it every view and what the views import (pydicom, the stage modules): 1 s and more.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="JSONL file of {id, report} lines")
        parser.add_argument("--output", required=True, help="JSONL file to write")
        parser.add_argument("--devices-are-findings", action="store_true",
                            help="a support device also makes 'No Finding' 0")

    def handle(self, *args, **options):
        try:
            count = label_file(options["input"], options["output"], progress=self.stderr,
                               devices_are_findings=options["devices_are_findings"])
        except (BatchInputError, OSError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"labelled {count} reports into {options['output']}")
