from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.core.paginator import Paginator
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from radreview.audit.services import record_event
from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.review.views import review_context

from . import selectors
from .forms import UploadForm
from .models import Image, Study
from .services.upload import UploadRejected, UploadRequest, create_studies
from .storage import media_path
from .upload_limits import OVERSIZE_ATTRIBUTE, fields_too_large_message

WORKLIST_PAGE_SIZE = 25


def worklist(request):
    filters = selectors.WorklistFilters.from_query(request.GET)
    studies = selectors.studies_for_worklist(filters, user=request.user)
    page = Paginator(studies, WORKLIST_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page, "filters": filters, "statuses": Study.Status.choices,
        "polling": any(not selectors.is_finished(s) for s in page),
    }
    template = "studies/_worklist_rows.html" if request.htmx else "studies/worklist.html"
    return render(request, template, context)


def upload(request):
    if request.method != "POST":
        return render(request, "studies/upload.html", {"form": UploadForm()})
    try:
        form = UploadForm(request.POST, request.FILES)
    except RequestDataTooBig:
        form = UploadForm(data={})
        form.is_valid()
        form.add_error(None, fields_too_large_message())
        return render(request, "studies/upload.html", {"form": form}, status=400)
    refused = getattr(request, OVERSIZE_ATTRIBUTE, None)
    if refused:
        form.add_error(None, refused)
    elif form.is_valid():
        try:
            studies = create_studies(user=request.user, request=UploadRequest(
                files=form.cleaned_data["files"],
                report_text=form.cleaned_data["report_text"],
                has_prior=form.cleaned_data["has_prior"],
                candidate_text=form.cleaned_data["candidate_text"],
                samples_text=form.cleaned_data["samples_text"],
                samples_file=form.cleaned_data["samples_file"],
                candidate_temperature=form.cleaned_data["candidate_temperature"],
                sample_temperature=form.cleaned_data["sample_temperature"],
                generator_name=form.cleaned_data["generator_name"],
            ))
        except UploadRejected as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, f"Uploaded {len(studies)} stud{'y' if len(studies) == 1 else 'ies'}.")
            if len(studies) == 1:
                return redirect("studies:detail", pk=studies[0].pk)
            return redirect("studies:worklist")
    return render(request, "studies/upload.html", {"form": form}, status=400)


def detail(request, pk: int):
    try:
        study = selectors.study_with_everything(pk)
    except Study.DoesNotExist:
        raise Http404("No such study") from None
    record_event("study_viewed", actor=request.user, study=study, detail={"via": "page"})
    report = study.audited_report
    context = {
        "study": study,
        "report": report,
        "sections": selectors.sections_of(report) if report else [],
        "finished": selectors.is_finished(study),
    }
    if report is not None and context["sections"]:
        # Once the report is parsed, the study page is the review page.
        context.update(review_context(request, study))
    return render(request, "studies/detail.html", context)


def jobs_panel(request, pk: int):
    study = get_object_or_404(Study.objects.prefetch_related("jobs"), pk=pk)
    finished = selectors.is_finished(study)
    response = render(request, "studies/_jobs.html", {"study": study, "finished": finished})
    if finished and request.GET.get("was_running"):
        # The pipeline just ended: reload the page so the report and previews appear.
        response["HX-Refresh"] = "true"
    return response


@require_POST
def retry_job(request, pk: int, job_pk: int):
    job = get_object_or_404(Job, pk=job_pk, study_id=pk)
    jobs.retry(job, actor=request.user)
    return redirect("studies:detail", pk=pk)


def image_file(request, pk: int, image_pk: int, variant: str):
    image = get_object_or_404(Image, pk=image_pk, study_id=pk)
    relative = {"preview": image.preview, "thumbnail": image.thumbnail}.get(variant)
    if not relative:
        raise Http404("No such image variant yet")
    path = media_path(relative)
    if not path.exists():
        raise Http404("Image file missing")
    return FileResponse(path.open("rb"), content_type="image/png")
