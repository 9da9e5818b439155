"""``python manage.py export_calibration --output REVIEWED.jsonl [--n-samples N]``

The site's reviewed studies as a pre-scored calibration file (rules in
radreview/calibration/export.py and docs/radflag.md), to recalibrate on real decisions:
``python manage.py calibrate --input REVIEWED.jsonl --alpha 0.1``. When no study can be
exported it writes nothing and says why (exit status 1).
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from radreview.audit.services import record_event

from ...export import reviewed_studies
from ...services import export_detail
from .calibrate import _write_atomically


class Command(BaseCommand):
    help = "Export the reviewed studies as a pre-scored RadFlag calibration file."

    def add_arguments(self, parser):
        parser.add_argument("--output", required=True)
        parser.add_argument("--n-samples", type=int, default=None,
                            help="keep studies with this many samples (default: the most common)")

    def handle(self, *args, **options):
        export = reviewed_studies(options["n_samples"])
        record_event("calibration_exported", detail={**export_detail(export), "by": "command"})
        if not export.records:
            raise CommandError(f"nothing written: {export.why_empty()}")
        _write_atomically(Path(options["output"]), export.jsonl().decode("utf-8"))
        self.stdout.write(f"{export.summary()} → {options['output']}")
