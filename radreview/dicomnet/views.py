"""Pages of the DICOM side: import from the PACS, send an SR again, queue a received study."""
from __future__ import annotations

import dataclasses
import re

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_radiologist, require_site_admin
from radreview.audit.services import record_event
from radreview.jobs.models import Job
from radreview.studies.models import Study

from . import delivery, inbox, pacs, pacs_import
from .models import InboundStudy, SrDelivery

_DATE_QUERY = re.compile(r"^\d{8}(-\d{8})?$|^\d{8}-$|^-\d{8}$")


def _search_fields(query) -> dict[str, str]:
    return {name: query.get(name, "").strip()[:64]
            for name in ("patient_id", "accession_number", "study_date")}


def _as_dicom_date(value: str) -> str:
    """"2024-05-01" (a date input) or "20240501-20240531" (a range) as DICOM wants it."""
    return value.replace("-", "") if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) else value


def import_from_pacs(request):
    """Search the PACS by patient ID, accession or date; import a study from the results."""
    require_radiologist(request.user)
    fields = _search_fields(request.GET)
    context = {"fields": fields, "configured": pacs.configured(), "results": None, "error": "",
               "imports": pacs_import.recent(request.user)}
    if any(fields.values()) and pacs.configured():
        study_date = _as_dicom_date(fields["study_date"])
        if study_date and not _DATE_QUERY.match(study_date):
            context["error"] = "Give the date as YYYY-MM-DD or a range YYYYMMDD-YYYYMMDD."
        else:
            try:
                context["results"] = _with_imports(pacs.search(
                    patient_id=fields["patient_id"], accession_number=fields["accession_number"],
                    study_date=study_date))
            except pacs.PacsError as exc:
                context["error"] = str(exc)
    return render(request, "dicomnet/import.html", context)


def _with_imports(results: list[pacs.PacsStudy]) -> list[pacs.PacsStudy]:
    """Each result with the import under way for it, if any."""
    running = pacs_import.under_way([study.study_instance_uid for study in results])
    return [dataclasses.replace(study, import_job=running[study.study_instance_uid].pk)
            if study.study_instance_uid in running else study for study in results]


@require_POST
def import_study(request):
    """Queue the import of a study (a worker retrieves it) and show its progress."""
    require_radiologist(request.user)
    uid = request.POST.get("study_instance_uid", "").strip()
    if not pacs.is_uid(uid):
        messages.error(request, "No study was chosen.")
        return redirect("dicomnet:import")
    if not pacs.configured():
        messages.error(request, "No PACS is configured for import; ask an admin.")
        return redirect("dicomnet:import")
    existing = Study.objects.filter(study_instance_uid=uid).first()
    if existing is not None:
        messages.info(request, f"This study is already RadReview study #{existing.pk}.")
        return redirect("studies:detail", pk=existing.pk)
    job = pacs_import.start(uid, actor=request.user)
    return redirect("dicomnet:import_job", pk=job.pk)


def import_job(request, pk: int):
    """An import's state: progress while it runs, then the study or why it failed (the
    panel polls itself until the job is finished)."""
    require_radiologist(request.user)
    job = get_object_or_404(Job, pk=pk, stage=pacs_import.STAGE)
    template = ("dicomnet/_import_job.html" if request.headers.get("HX-Request")
                else "dicomnet/import_job.html")
    return render(request, template, {"job": job})


@require_POST
def send_sr_again(request, pk: int):
    sr = get_object_or_404(SrDelivery, pk=pk)
    delivery.send_now(sr, actor=request.user)
    messages.success(request, "The signed report will be sent to the PACS again now.")
    return redirect("studies:detail", pk=sr.study_id)


@require_POST
def queue_inbound(request, pk: int):
    """Queue a received study now instead of waiting for the quiet period (admins)."""
    require_site_admin(request.user)
    batch = get_object_or_404(InboundStudy, pk=pk)
    inbox.request_ingest(batch)
    record_event("dicom_ingest_requested", actor=request.user, detail={"batch": batch.pk})
    messages.success(request, "The received study will be queued within a few seconds.")
    return redirect("sitesetup:checklist")
