"""Calibrations in the Django admin: to read. They are made on the calibration page and never
edited; activation is an append-only log."""
from django.contrib import admin

from radreview.readonly_admin import ReadOnlyAdmin

from .models import (
    Activation,
    Calibration,
    CombinationActivation,
    CombinationCalibration,
    StudyRadFlag,
)


@admin.register(Calibration)
class CalibrationAdmin(ReadOnlyAdmin):
    list_display = ("version", "created_at", "alpha", "lambda1", "lambda2", "n_samples",
                    "n_sentences", "per_category")


@admin.register(Activation)
class ActivationAdmin(ReadOnlyAdmin):  # also the combination's activations, below
    list_display = ("__str__", "calibration", "activated_by", "activated_at")
    list_select_related = ("calibration", "activated_by")


@admin.register(StudyRadFlag)
class StudyRadFlagAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "calibration", "n_samples", "lambda1", "lambda2",
                    "flagged_sentences", "report_flagged")
    list_select_related = ("calibration",)


@admin.register(CombinationCalibration)
class CombinationCalibrationAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "created_at", "alpha", "threshold", "studies", "sentences",
                    "wrong", "right")


admin.site.register(CombinationActivation, ActivationAdmin)
