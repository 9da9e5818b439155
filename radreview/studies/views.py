import json

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import RequestDataTooBig
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.csrf import csrf_failure as django_csrf_failure
from django.views.decorators.http import require_POST

from radreview.audit.services import record_study_view
from radreview.dicomnet import selectors as dicom_selectors
from radreview.jobs import capacity
from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.library.drafting import drafting_available
from radreview.review.views import review_context
from workers.types import Harm

from . import selectors, storage, upload_limits
from .age import display_age
from .forms import UploadForm
from .models import Image, Study
from .services import presence
from .services.upload import UploadRejected, UploadRequest, create_studies_once
from .storage import OriginalMissing
from .upload_limits import OVERSIZE_ATTRIBUTE, fields_too_large_message

WORKLIST_PAGE_SIZE = 25
HARMS = list(Harm)
WORKLIST_SORTS = [("newest", "newest first"), ("oldest", "oldest first"),
                  ("harm", "highest open harm"), ("study_date", "study date"),
                  ("patient", "patient name"), ("patient_id", "patient ID"),
                  ("accession", "accession number"), ("status", "status")]


def worklist(request):
    filters = selectors.WorklistFilters.from_query(request.GET)
    studies = selectors.studies_for_worklist(filters, user=request.user)
    page = Paginator(studies, WORKLIST_PAGE_SIZE).get_page(request.GET.get("page"))
    reading = selectors.reading_now([study.pk for study in page])
    for study in page:
        study.reading = reading.get(study.pk, [])
        study.modality_views = selectors.modality_and_views(study)
        study.failed_job = selectors.failed_job(study)
        study.open_harm = HARMS[study.open_harm_rank] if study.open_harm_rank is not None else None
    context = {
        "page": page, "filters": filters, "statuses": Study.Status.choices,
        # Studies still running refresh quickly; new arrivals appear within the slower poll.
        "poll_seconds": 2 if any(not selectors.is_finished(s) for s in page) else 5,
        "sorts": WORKLIST_SORTS,
    }
    if not request.htmx:  # the rows' poll does not show it: no count per poll
        context["single_machine"] = capacity.single_machine_limit()
    template = "studies/_worklist_rows.html" if request.htmx else "studies/worklist.html"
    return render(request, template, context)


def _upload_page(request, form, status: int = 200, refused: str = ""):
    context = {"form": form, "limits": upload_limits.limits(), "refused": refused,
               "drafting": drafting_available(),
               "single_machine": capacity.single_machine_limit()}
    return render(request, "studies/upload.html", context, status=status)


def upload(request):
    if request.method != "POST":
        return _upload_page(request, UploadForm())
    try:
        form = UploadForm(request.POST, request.FILES)  # parsing runs the size limits
    except RequestDataTooBig:  # read here when no CSRF check read it first
        return _upload_page(request, UploadForm(), status=413, refused=fields_too_large_message())
    refused = getattr(request, OVERSIZE_ATTRIBUTE, None)
    if refused:
        return _upload_page(request, UploadForm(), status=413, refused=refused)
    if form.is_valid():
        data = form.cleaned_data
        upload_request = UploadRequest(
            files=data["files"], report_text=data["report_text"], has_prior=data["has_prior"],
            patient_name=data["patient_name"], patient_id=data["patient_id"],
            accession_number=data["accession_number"],
            candidate_text=data["candidate_text"], samples_text=data["samples_text"],
            samples_file=data["samples_file"],
            candidate_temperature=data["candidate_temperature"],
            sample_temperature=data["sample_temperature"],
            generator_name=data["generator_name"],
        )
        try:
            studies, replayed = create_studies_once(user=request.user, request=upload_request,
                                                    key=data["upload_token"])
        except UploadRejected as exc:
            form.add_error(None, exc.message)
        else:
            count = len(studies)
            studies_word = f"{count} stud{'y' if count == 1 else 'ies'}"
            if replayed:  # the same form sent again: the first upload's studies, nothing new
                messages.info(request, f"This upload was already received ({studies_word}); "
                                       "nothing was uploaded twice.")
            else:
                messages.success(request, f"Uploaded {studies_word}.")
            if count == 1:
                return redirect("studies:detail", pk=studies[0].pk)
            return redirect("studies:worklist")
    return _upload_page(request, form, status=400)


def csrf_failure(request, reason=""):
    """A request refused for its size before its body (and so its CSRF token) was read gets
    413 and the size message, on the upload page when it came from there (the API answers
    the same, radreview/api/exceptions.py); any other CSRF failure is Django's usual 403."""
    refused = getattr(request, OVERSIZE_ATTRIBUTE, None)
    if not refused:
        return django_csrf_failure(request, reason=reason)
    if request.user.is_authenticated and request.path == reverse("studies:upload"):
        return _upload_page(request, UploadForm(), status=413, refused=refused)
    return HttpResponse(refused, status=413, content_type="text/plain; charset=utf-8")


def detail(request, pk: int):
    try:
        study = selectors.study_with_everything(pk)
    except Study.DoesNotExist:
        raise Http404("No such study") from None
    record_study_view(request.user, study, via="page")
    presence.record(study.pk, request.user)
    report = study.audited_report
    missing = selectors.images_missing_files(study)
    priors = selectors.priors_of(study)
    viewer_images = dicom_selectors.viewer_images(study, frozenset(i.pk for i in missing))
    context = {
        "missing_images": missing,
        "priors": priors,
        "prior": selectors.prior_report(priors),
        "max_report_chars": settings.MAX_REPORT_CHARS,
        "study": study,
        "report": report,
        "sections": selectors.sections_of(report) if report else [],
        "finished": selectors.is_finished(study),
        "age": display_age(study),
        "viewer_images": viewer_images,
        "viewer_images_json": json.dumps(viewer_images),
        "presence_poll_seconds": presence.POLL_SECONDS,
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
def still_open(request, pk: int):
    """The study page's presence poll: its radiologist still has it open."""
    if not Study.objects.filter(pk=pk).exists():
        raise Http404("No such study")
    presence.record(pk, request.user)
    # Here rather than on the page itself, which stays one query dearer only: every open page
    # polls, so the table never holds much more than the pages open now.
    presence.forget_expired()
    return HttpResponse(status=204)


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
    try:
        return storage.serve(relative, "image/png")
    except FileNotFoundError:
        raise OriginalMissing from None  # answered 410 with the reason (studies/middleware.py)
