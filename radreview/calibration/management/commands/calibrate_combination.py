"""``python manage.py calibrate_combination --alpha 0.1 [--activate]``

Fits the system combination's calibration on the radiologists' decisions so far (the same as
"Fit the combination's calibration" on the calibration page; radreview/calibration/combination.py)
and keeps it as a new version; ``--activate`` also makes the combination flag with it. Too few
decisions stop it with how many are needed (exit status 1).
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ... import combination
from ...services import CalibrationRejected


class Command(BaseCommand):
    help = "Calibrate the system combination's score on the radiologists' decisions."

    def add_arguments(self, parser):
        parser.add_argument("--alpha", required=True, type=float,
                            help="the share of true sentences the combination may flag")
        parser.add_argument("--activate", action="store_true",
                            help="flag with the new version from now on")

    def handle(self, *args, **options):
        try:
            fitted = combination.fit(alpha=options["alpha"])
        except CalibrationRejected as exc:
            raise CommandError(exc.message) from None
        held = fitted.result["held_out"]
        threshold = (f"from probability {fitted.threshold:g}" if fitted.threshold is not None
                     else "nothing on its score alone (no threshold met α)")
        self.stdout.write(
            f"combination calibration version {fitted.version}: flags {threshold}; on the "
            f"hold-out half, true sentences flagged {held['right_flagged']} of {held['right']}, "
            f"wrong sentences flagged {held['wrong_flagged']} of {held['wrong']}")
        if options["activate"]:
            combination.activate(fitted)
            self.stdout.write(f"version {fitted.version} is now active")
