"""Combination settings, detector weights and false-positive rules, edited by admins."""
from django.contrib import admin

from .models import CombinationSettings, DetectorWeight, FilterRule


@admin.register(CombinationSettings)
class CombinationSettingsAdmin(admin.ModelAdmin):
    list_display = ("__str__", "enabled", "flag_threshold", "similarity_threshold", "updated_at")

    def has_add_permission(self, request):
        return not CombinationSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DetectorWeight)
class DetectorWeightAdmin(admin.ModelAdmin):
    list_display = ("detector", "order", "weight")
    list_editable = ("order", "weight")


@admin.register(FilterRule)
class FilterRuleAdmin(admin.ModelAdmin):
    list_display = ("name", "kind", "enabled", "order", "metric", "threshold", "harm")
    list_editable = ("enabled", "order")
    list_filter = ("kind", "enabled")
    fieldsets = (
        (None, {"fields": ("name", "kind", "enabled", "order", "description")}),
        ("Restates the sentence", {"fields": ("metric", "threshold")}),
        ("Pattern or omission", {"fields": ("pattern",)}),
        ("Harm below", {"fields": ("harm",)}),
    )
