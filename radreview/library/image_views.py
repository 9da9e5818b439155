"""Pages and images of the image memory.

* Images (any logged-in user; the login middleware guards every URL): reference thumbnails,
  window/level renders of reference and study images.
* The reference library page (site admins): the memory's status, imports (a ZIP upload or a
  server folder) and rebuilds as site jobs with a progress bar.
* A reference study's page, where a retrieved neighbour leads.
"""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_site_admin
from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.studies import storage
from radreview.studies.models import Image
from radreview.studies.storage import OriginalMissing
from workers.pipeline import queue_for

from . import image_memory, renders
from .image_import import ImportRefused
from .image_import_stage import IMPORT_STAGE, REBUILD_STAGE
from .models import ReferenceImage, ReferenceStudy
from .upload import save_upload, server_path

IMPORT_ROLES = ("image_encoder", "extractor", "llm", "text_embedder")


def reference_thumbnail(request, pk: int):
    image = get_object_or_404(ReferenceImage, pk=pk)
    if not image.thumbnail:
        raise Http404("This reference image has no thumbnail")
    try:
        return storage.serve(image.thumbnail, "image/png")
    except FileNotFoundError:
        raise Http404("Thumbnail file missing") from None


def _render(original: str, kind: str, preset: str, side, key: str, missing: Exception):
    if preset not in dict(renders.presets()):
        raise Http404("No such preset")
    try:
        rendered = renders.render_png(original, kind, preset, renders.side_of(side), key)
        return storage.serve(rendered, "image/png")
    except FileNotFoundError:
        raise missing from None


def reference_render(request, pk: int, preset: str):
    image = get_object_or_404(ReferenceImage, pk=pk)
    if not image.file:
        raise Http404("No file")
    return _render(image.file.name, image.kind, preset, request.GET.get("side"),
                   f"reference-{image.pk}-{(image.sha256 or 'x')[:12]}",
                   Http404("Image file missing"))


def study_image_render(request, study_pk: int, image_pk: int, preset: str):
    image = get_object_or_404(Image, pk=image_pk, study_id=study_pk)
    return _render(image.original.name, image.kind, preset, request.GET.get("side"),
                   f"study-{image.pk}-{image.sha256[:12]}", OriginalMissing())


def reference_study(request, pk: int):
    study = get_object_or_404(ReferenceStudy.objects.prefetch_related("images"), pk=pk)
    return render(request, "library/reference_study.html",
                  {"study": study, "presets": renders.presets()})


# --- the reference library page (site admins) ------------------------------------------------


class ImportForm(forms.Form):
    source = forms.SlugField(max_length=40, initial="site",
                             help_text="Groups the studies (e.g. site, iu-xray).")
    archive = forms.FileField(required=False, help_text=(
        "A ZIP file holding the images and a reports.csv or reports.jsonl file."))
    images = forms.CharField(required=False, max_length=500, help_text=(
        "Or a folder on the server, relative to the import folder."))
    reports = forms.CharField(required=False, max_length=500, help_text=(
        "The reports file on the server, relative to the import folder."))

    def clean(self):
        data = super().clean()
        if not data.get("archive") and not (data.get("images") and data.get("reports")):
            raise forms.ValidationError("Upload a ZIP file, or name a server folder of images "
                                        "and a reports file.")
        return data


def _recent_jobs():
    return Job.objects.filter(study__isnull=True, stage__in=(IMPORT_STAGE, REBUILD_STAGE)) \
        .order_by("-created_at", "-id")[:10]


def library_page(request, form: ImportForm | None = None, status: int = 200):
    require_site_admin(request.user)
    context = {
        "memory": image_memory.status(), "form": form or ImportForm(), "jobs": _recent_jobs(),
        "import_root": settings.LIBRARY_IMPORT_ROOT,
        "studies": ReferenceStudy.objects.filter(images__isnull=False).distinct().count(),
    }
    return render(request, "library/images.html", context, status=status)


@require_POST
def start_import(request):
    require_site_admin(request.user)
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return library_page(request, form, status=400)
    params = {"source": form.cleaned_data["source"]}
    try:
        if form.cleaned_data.get("archive"):
            params["archive"] = str(save_upload(form.cleaned_data["archive"]))
            params["file_name"] = form.cleaned_data["archive"].name[:200]
        else:
            params["images"] = str(server_path(form.cleaned_data["images"], folder=True))
            params["reports"] = str(server_path(form.cleaned_data["reports"], folder=False))
    except ImportRefused as exc:
        form.add_error(None, exc.message)
        return library_page(request, form, status=400)
    job = jobs.start_site_job(IMPORT_STAGE, params, actor=request.user,
                              queue=queue_for(IMPORT_ROLES))
    return render(request, "library/_job.html", {"job": job}, status=202)


@require_POST
def start_rebuild(request):
    require_site_admin(request.user)
    job = jobs.start_site_job(REBUILD_STAGE, {}, actor=request.user,
                              queue=queue_for(IMPORT_ROLES))
    return render(request, "library/_job.html", {"job": job}, status=202)


def job_panel(request, job_pk: int):
    require_site_admin(request.user)
    job = get_object_or_404(Job, pk=job_pk, stage__in=(IMPORT_STAGE, REBUILD_STAGE))
    return render(request, "library/_job.html", {"job": job})
