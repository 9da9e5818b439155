"""The "calibrate" site job: score and calibrate an uploaded file in a worker, store a version.

Raw files are scored by the entailment role (the built-in engine, or the llm role's model —
the same judge the radflag stage uses, so thresholds and support scores agree).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from radreview.studies.storage import read_media
from workers.radflag import calibration as crc

from .services import CALIBRATE_STAGE


@dataclass(frozen=True)
class CalibrationJob:
    data: bytes
    file_name: str
    alpha: float
    target_report_rate: float | None
    per_category: bool


def load(job: Job) -> CalibrationJob:
    params = job.params
    return CalibrationJob(
        data=read_media(params["path"]), file_name=params.get("file_name") or "upload",
        alpha=params["alpha"], target_report_rate=params.get("target_report_rate"),
        per_category=bool(params.get("per_category")),
    )


def compute(inputs: CalibrationJob, models, progress) -> crc.CalibrationResult:
    records = crc.read_lines(inputs.data.splitlines(), source=inputs.file_name)
    model = models["llm"] if any(isinstance(r, crc.RawReport) for r in records) else None
    progress(0.02, f"{len(records)} reports read")
    reports = crc.prepare(records, model=model, categorise=inputs.per_category,
                          progress=lambda fraction, note="": progress(0.02 + 0.93 * fraction, note))
    result = crc.calibrate(reports, alpha=inputs.alpha, per_category=inputs.per_category,
                           target_report_rate=inputs.target_report_rate)
    progress(1.0, f"λ1 = {result.lambda1} from {result.n_sentences} sentences")
    return result


def store(job: Job, result: crc.CalibrationResult) -> dict:
    from .services import create_calibration  # noqa: PLC0415 - defer faiss/pydicom/pynetdicom/scipy

    params = job.params
    calibration = create_calibration(result, file_name=params.get("file_name", ""),
                                     sha256=params.get("sha256", ""), path=params.get("path", ""),
                                     actor=job.created_by, job=job)
    return {"calibration": calibration.pk, "version": calibration.version,
            "summary": result.summary(), "at": timezone.now().isoformat()}


CALIBRATE = Stage(CALIBRATE_STAGE, load, compute, store, ("llm",))
