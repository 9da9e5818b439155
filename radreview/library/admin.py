"""The reference library in the Django admin: its reports, and an "Import reports" page that
starts the import_reference site job (admins only) and follows its progress."""
from __future__ import annotations

import uuid
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path, reverse

from radreview.accounts.permissions import require_site_admin
from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.readonly_admin import ReadOnlyAdmin
from workers.pipeline import queue_for

from .models import IU_SOURCE, JSONL_SOURCE, ReferenceImage, ReferenceStudy

MAX_UPLOAD_BYTES = 200 * 1024 * 1024


class ImportForm(forms.Form):
    source = forms.ChoiceField(choices=[
        (IU_SOURCE,
         "Indiana University chest X-ray reports (3,955; fetched with pip)"),
        (JSONL_SOURCE, 'A JSONL file of {"id", "report"} lines'),
    ])
    file = forms.FileField(required=False, help_text="The JSONL file (JSONL imports only).")

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if data.get("source") == JSONL_SOURCE and not upload:
            raise forms.ValidationError("Choose the JSONL file to import.")
        if upload and upload.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError("The file is larger than 200 MB.")
        return data


def _save_upload(upload) -> Path:
    target = Path(settings.DATA_DIR) / "imports" / f"{uuid.uuid4().hex}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return target


@admin.register(ReferenceStudy)
class ReferenceStudyAdmin(admin.ModelAdmin):
    list_display = ("external_id", "source", "created_at")
    list_filter = ("source",)
    search_fields = ("external_id", "report")
    readonly_fields = ("created_at",)
    change_list_template = "admin/library/referencestudy/change_list.html"

    def get_urls(self):
        own = [
            path("import/", self.admin_site.admin_view(self.import_view),
                 name="library_referencestudy_import"),
            path("import/<int:job_pk>/", self.admin_site.admin_view(self.import_job_view),
                 name="library_referencestudy_import_job"),
        ]
        return own + super().get_urls()

    def import_view(self, request):
        # the import stage brings the text library (FAISS, the sentence vectors), which the
        # admin's other pages, and every process that loads the admin, do not need
        from .text_stage import STAGE  # noqa: PLC0415 - imported by the import pages only

        require_site_admin(request.user)
        form = ImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            params = {"source": form.cleaned_data["source"]}
            if form.cleaned_data.get("file"):
                params["path"] = str(_save_upload(form.cleaned_data["file"]))
            job = jobs.start_site_job(STAGE, params, actor=request.user,
                                      queue=queue_for(("text_embedder",)))
            messages.info(request, "The import has started; this page follows it.")
            return redirect(reverse("admin:library_referencestudy_import_job", args=[job.pk]))
        recent = Job.objects.filter(stage=STAGE).order_by("-id")[:5]
        context = {**self.admin_site.each_context(request), "form": form, "recent": recent,
                   "title": "Import reference reports", "opts": self.model._meta,
                   "library_size": ReferenceStudy.objects.count()}
        return render(request, "admin/library/referencestudy/import.html", context)

    def import_job_view(self, request, job_pk: int):
        from .text_stage import STAGE  # noqa: PLC0415 - imported by the import pages only

        require_site_admin(request.user)
        job = get_object_or_404(Job, pk=job_pk, stage=STAGE)
        context = {**self.admin_site.each_context(request), "job": job,
                   "title": "Import reference reports", "opts": self.model._meta,
                   "percent": round(100 * job.progress)}
        return render(request, "admin/library/referencestudy/import_job.html", context)


@admin.register(ReferenceImage)
class ReferenceImageAdmin(ReadOnlyAdmin):
    """Reference images (docs/images.md): imported, embedded and rebuilt from the image-memory
    page (/site/library/), which this list links to; rows are read-only here."""

    list_display = ("id", "study", "view", "kind", "original_name", "created_at")
    list_filter = ("view", "kind", "study__source")
    search_fields = ("study__external_id", "original_name", "sha256")
    readonly_fields = [field.name for field in ReferenceImage._meta.fields]
    change_list_template = "library/admin_images_change_list.html"
