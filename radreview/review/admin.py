"""Detections, decisions and signed versions in the admin: to read, never to change.

Decisions and sign-offs are the medico-legal record; a detection is what a reviewer decided
on. None of them can be added, edited or deleted here, by anyone.
"""
from django.contrib import admin

from radreview.readonly_admin import ReadOnlyAdmin

from .models import Decision, Detection, SignOff


@admin.register(Detection)
class DetectionAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "report", "detector", "harm", "confidence", "flagged")
    list_filter = ("detector", "harm", "flagged")
    list_select_related = ("report",)


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ("id", "study", "action", "sentence", "user", "created_at", "study_version")
    list_filter = ("action",)
    list_select_related = ("user", "sentence__report")


@admin.register(SignOff)
class SignOffAdmin(ReadOnlyAdmin):
    list_display = ("study", "version", "signer", "signed_at", "sha256")
    list_select_related = ("signer",)
