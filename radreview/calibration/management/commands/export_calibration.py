"""``python manage.py export_calibration --output REVIEWED.jsonl [--n-samples N]``

The site's reviewed studies as a pre-scored calibration file (rules in
radreview/calibration/export.py and docs/radflag.md), to recalibrate on real decisions:
``python manage.py calibrate --input REVIEWED.jsonl --alpha 0.1``.
"""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand

from radreview.audit.services import record_event

from ...export import reviewed_studies
from .calibrate import _write_atomically


class Command(BaseCommand):
    help = "Export the reviewed studies as a pre-scored RadFlag calibration file."

    def add_arguments(self, parser):
        parser.add_argument("--output", required=True)
        parser.add_argument("--n-samples", type=int, default=None,
                            help="keep studies with this many samples (default: the most common)")

    def handle(self, *args, **options):
        export = reviewed_studies(options["n_samples"])
        _write_atomically(Path(options["output"]), export.jsonl().decode("utf-8"))
        record_event("calibration_exported", detail={
            "reports": len(export.records), "sentences": export.sentences,
            "n_samples": export.n_samples, "left_out_other_n": export.left_out_other_n,
            "by": "command",
        })
        left_out = (f"; {export.left_out_other_n} with another number of samples left out"
                    if export.left_out_other_n else "")
        self.stdout.write(f"{len(export.records)} reviewed studies, {export.sentences} sentences, "
                          f"n = {export.n_samples}{left_out} → {options['output']}")
