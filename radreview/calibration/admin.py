"""Calibrations in the Django admin: to read. They are made on the calibration page and never
edited; activation is an append-only log."""
from django.contrib import admin

from radreview.readonly_admin import ReadOnlyAdmin

from .models import Activation, Calibration, StudyRadFlag


@admin.register(Calibration)
class CalibrationAdmin(ReadOnlyAdmin):
    list_display = ("version", "created_at", "alpha", "lambda1", "lambda2", "n_samples",
                    "n_sentences", "per_category")


@admin.register(Activation)
class ActivationAdmin(ReadOnlyAdmin):
    list_display = ("id", "calibration", "activated_by", "activated_at")


@admin.register(StudyRadFlag)
class StudyRadFlagAdmin(ReadOnlyAdmin):
    list_display = ("study", "calibration", "n_samples", "lambda1", "lambda2", "flagged_sentences",
                    "report_flagged")
