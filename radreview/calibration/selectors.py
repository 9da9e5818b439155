"""Reads for the calibration pages."""
from __future__ import annotations

from radreview.jobs.models import Job

from . import plot
from .models import Activation, Calibration, CombinationCalibration
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
    """λ1 per category with the figures within the category (workers/radflag/risk.py); a
    calibration stored before those figures were kept has its sizes only."""
    stored = {row["category"]: row for row in calibration.result.get("category_figures", [])}
    sizes = calibration.result.get("category_sentences", {})
    return [stored.get(name) or {"category": name, "lambda1": value, "sentences": sizes.get(name)}
            for name, value in (calibration.lambda1_by_category or {}).items()]


def threshold_sets(calibration: Calibration) -> list[dict]:
    """One row of figures per threshold set, each from its own thresholds: the overall λ1 (the
    plot's), and the per-category λ1 in force when there is one. Calibrations stored before
    the sets were kept get them from the curve (overall) and the stored figures (in force)."""
    result = calibration.result
    if result.get("threshold_sets"):
        return result["threshold_sets"]
    n_factual = result.get("n_factual")

    def true_rate(risk):
        if not n_factual or risk is None:
            return None
        return risk * calibration.n_sentences / n_factual

    at = next((row for row in result.get("curve", []) if row["lambda"] == calibration.lambda1), {})
    overall = {"name": "overall", "lambda1": calibration.lambda1,
               "in_force": not calibration.per_category, "risk": at.get("risk"),
               "adjusted_risk": at.get("adjusted_risk"),
               "true_flag_rate": true_rate(at.get("risk")),
               "sentence_flag_rate": at.get("sentence_flag_rate"),
               "report_flag_rate": at.get("report_flag_rate"),
               "lambda2": result.get("curve_lambda2")}
    if not calibration.per_category:
        return [overall]
    return [overall, {
        "name": "per_category", "lambda1_by_category": calibration.lambda1_by_category,
        "in_force": True, "risk": calibration.risk_at_lambda1,
        "adjusted_risk": calibration.adjusted_risk_at_lambda1,
        "true_flag_rate": true_rate(calibration.risk_at_lambda1),
        "sentence_flag_rate": calibration.sentence_flag_rate,
        "report_flag_rate": calibration.report_flag_rate, "lambda2": calibration.lambda2}]



def combination_calibrations() -> list[CombinationCalibration]:
    return list(CombinationCalibration.objects.select_related("created_by").order_by("-version"))
