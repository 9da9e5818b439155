"""Reads for the calibration pages."""
from __future__ import annotations

from radreview.jobs.models import Job

from . import plot
from .models import Activation, Calibration
from .services import CALIBRATE_STAGE


def calibrations() -> list[Calibration]:
    return list(Calibration.objects.select_related("created_by").order_by("-version"))


def active_id() -> int | None:
    return Activation.objects.order_by("-id").values_list("calibration_id", flat=True).first()


def activations(limit: int = 20) -> list[Activation]:
    rows = Activation.objects.select_related("calibration", "activated_by").order_by("-id")
    return list(rows[:limit])


def recent_runs(limit: int = 10) -> list[Job]:
    return list(Job.objects.filter(stage=CALIBRATE_STAGE, study__isnull=True)
                .select_related("created_by").order_by("-created_at", "-id")[:limit])


def run(job_pk: int) -> Job:
    return Job.objects.get(pk=job_pk, stage=CALIBRATE_STAGE, study__isnull=True)


def calibration_of(job: Job) -> Calibration | None:
    pk = (job.result or {}).get("calibration")
    return Calibration.objects.filter(pk=pk).first() if pk else None


def figure(calibration: Calibration) -> plot.Plot | None:
    return plot.build(calibration.result.get("curve", []), alpha=calibration.alpha,
                      lambda1=calibration.lambda1)


def category_rows(calibration: Calibration) -> list[dict]:
    sizes = calibration.result.get("category_sentences", {})
    return [{"category": name, "lambda1": value, "sentences": sizes.get(name)}
            for name, value in (calibration.lambda1_by_category or {}).items()]
