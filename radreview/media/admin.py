from django.contrib import admin

from radreview.readonly_admin import ReadOnlyAdmin

from .models import MediaCheck, UploadIntent


@admin.register(UploadIntent)
class UploadIntentAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "source", "state", "cleaned_by", "removed_files", "folder")
    list_filter = ("state", "source", "cleaned_by")


@admin.register(MediaCheck)
class MediaCheckAdmin(ReadOnlyAdmin):
    list_display = ("checked_at", "files_seen", "unreferenced_files", "missing_files",
                    "studies_missing_files")
