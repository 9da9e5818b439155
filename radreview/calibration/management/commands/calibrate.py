"""``python manage.py calibrate --input CAL.jsonl --alpha A [--per-category]
[--target-report-rate R] [--output RESULT.json] [--save]``

RadFlag's λ1 (and per-category λ1, and λ2) by conformal risk control; the result JSON is
printed on stdout and written to --output. Raw lines are scored by the entailment role (the
built-in engine unless RADREVIEW_LLM names a model). ``--save`` also keeps the result as a new
calibration version (not activated). A bad file or setting stops with an error naming the line.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from workers.backends import registry
from workers.radflag import calibration as crc


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class Command(BaseCommand):
    help = "RadFlag's thresholds λ1 (and λ2) from a calibration file by conformal risk control."

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, help="calibration file (JSON lines)")
        parser.add_argument("--alpha", required=True,
                            help="risk level α, strictly between 0 and 1")
        parser.add_argument("--per-category", action="store_true",
                            help="also choose λ1 per finding category")
        parser.add_argument("--target-report-rate", default=None,
                            help="share of calibration reports λ2 should flag (0..1); "
                                 "without it, no λ2")
        parser.add_argument("--output", default=None, help="write the result JSON here too")
        parser.add_argument("--save", action="store_true",
                            help="keep the result as a new calibration version (not activated)")

    def handle(self, *args, **options):
        alpha = self._number(options["alpha"], "--alpha")
        target = options["target_report_rate"]
        target = self._number(target, "--target-report-rate") if target is not None else None
        path = Path(options["input"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        try:
            crc.check_alpha(alpha)
            crc.check_target_rate(target)
            records = crc.read_file(path)
            model = None
            if any(isinstance(r, crc.RawReport) for r in records):

                model = registry.llm()
            reports = crc.prepare(records, model=model, categorise=options["per_category"],
                                  progress=self._progress(len(records)))
            result = crc.calibrate(reports, alpha=alpha, per_category=options["per_category"],
                                   target_report_rate=target)
        except crc.CalibrationInputError as exc:
            message = exc.message
            if exc.line is not None and not message.startswith(path.name):
                message = f"{path.name}: {message}"
            raise CommandError(message) from None
        except UnicodeDecodeError:
            raise CommandError(f"{path}: the file is not UTF-8 text") from None
        text = json.dumps(result.summary(), indent=2, ensure_ascii=False)
        if options["output"]:
            _write_atomically(Path(options["output"]), text + "\n")
        self.stdout.write(text)
        if options["save"]:
            self._save(path, result)

    @staticmethod
    def _number(value: str, name: str) -> float:
        try:
            return float(value)
        except ValueError:
            raise CommandError(f"{name} must be a number, got {value!r}") from None

    @staticmethod
    def _progress(total: int):
        def report(fraction: float, note: str = "") -> None:
            done = round(fraction * total)
            if total >= 200 and (done % 200 == 0 or done == total):
                print(f"calibrate: {note}", file=sys.stderr)
        return report

    def _save(self, path: Path, result: crc.CalibrationResult) -> None:
        from ...services import create_calibration  # noqa: PLC0415 - defer faiss/pydicom/pynetdicom/scipy

        calibration = create_calibration(result, file_name=path.name,
                                         sha256=hashlib.sha256(path.read_bytes()).hexdigest())
        self.stderr.write(f"saved as calibration version {calibration.version} (not active)")
