"""A Django admin page that shows rows and never changes them.

For the medico-legal record (decisions, signed reports, audit events) and for rows that other
pages create (calibrations, reference images): nobody adds, edits or deletes them in the admin.
"""
from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
