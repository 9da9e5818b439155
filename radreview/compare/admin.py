"""Drafting-quality rows in the Django admin: to read. Signing and the compare_draft job make
them; nobody edits them."""
from django.contrib import admin

from radreview.readonly_admin import ReadOnlyAdmin

from .models import DraftComparison, DraftError, DraftOrigin


@admin.register(DraftOrigin)
class DraftOriginAdmin(ReadOnlyAdmin):
    list_display = ("report", "model_name", "model_version", "created_at")
    list_select_related = ("report",)


@admin.register(DraftComparison)
class DraftComparisonAdmin(ReadOnlyAdmin):
    list_display = ("__str__", "model_name", "model_version", "week", "state", "unchanged",
                    "errors_total", "errors_significant", "current")
    list_filter = ("current", "state", "model_name")


@admin.register(DraftError)
class DraftErrorAdmin(ReadOnlyAdmin):
    list_display = ("comparison", "category", "significant", "explanation")
    list_filter = ("category", "significant")
    list_select_related = ("comparison",)
