"""The admin calibration page: upload and run, follow the run, read and activate versions."""
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_site_admin
from radreview.jobs.models import Job

from . import combination, selectors, services
from .forms import CalibrationRunForm, CombinationFitForm
from .models import Calibration, CombinationCalibration


def _page(request, form, status=200, combination_form=None):
    thresholds = services.active_thresholds()
    alpha = thresholds.alpha or 0.1  # the site's α: the active RadFlag calibration's
    return render(request, "calibration/index.html", {
        "form": form, "calibrations": selectors.calibrations(), "active_id": selectors.active_id(),
        "runs": selectors.recent_runs(), "activations": selectors.activations(),
        "thresholds": thresholds,
        "combination_form": combination_form or CombinationFitForm(initial={"alpha": alpha}),
        "combination_readiness": combination.readiness(alpha),
        "combination_calibrations": selectors.combination_calibrations(),
        "combination_active": combination.active(),
    }, status=status)


def index(request):
    require_site_admin(request.user)
    return _page(request, CalibrationRunForm())


@require_POST
def run(request):
    require_site_admin(request.user)
    form = CalibrationRunForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, form, status=400)
    upload = form.cleaned_data["file"]
    try:
        job = services.start_run(services.RunRequest(
            data=upload.read(), file_name=upload.name, alpha=form.cleaned_data["alpha"],
            target_report_rate=form.cleaned_data["target_report_rate"],
            per_category=form.cleaned_data["per_category"],
        ), actor=request.user)
    except services.CalibrationRejected as exc:
        form.add_error(None, exc.message)
        return _page(request, form, status=400)
    return redirect("calibration:run", job_pk=job.pk)


def run_status(request, job_pk: int):
    """The run's page, and (htmx) its progress partial; a finished run goes to its calibration."""
    require_site_admin(request.user)
    try:
        job = selectors.run(job_pk)
    except Job.DoesNotExist:
        raise Http404("No such calibration run") from None
    calibration = selectors.calibration_of(job) if job.state == Job.State.DONE else None
    if request.htmx:
        context = {"job": job, "calibration": calibration}
        response = render(request, "calibration/_run.html", context)
        if calibration is not None:
            response["HX-Redirect"] = calibration_url(calibration)
        return response
    if calibration is not None:
        return redirect("calibration:detail", pk=calibration.pk)
    return render(request, "calibration/run.html", {"job": job, "calibration": calibration})


def calibration_url(calibration: Calibration) -> str:

    return reverse("calibration:detail", args=[calibration.pk])


def detail(request, pk: int):
    require_site_admin(request.user)
    calibration = get_object_or_404(Calibration.objects.select_related("created_by"), pk=pk)
    return render(request, "calibration/detail.html", {
        "calibration": calibration, "plot": selectors.figure(calibration),
        "lambda2_rows": calibration.result.get("lambda2_table", []),
        "category_rows": selectors.category_rows(calibration),
        "threshold_sets": selectors.threshold_sets(calibration),
        "is_active": selectors.active_id() == calibration.pk,
    })


@require_POST
def activate(request, pk: int):
    require_site_admin(request.user)
    calibration = get_object_or_404(Calibration, pk=pk)
    services.activate(calibration, actor=request.user)
    messages.success(request, f"Calibration version {calibration.version} is now active.")
    return redirect("calibration:detail", pk=pk)


@require_POST
def use_defaults(request):
    require_site_admin(request.user)
    services.activate(None, actor=request.user)
    messages.success(request, "RadFlag now flags with the default thresholds.")
    return redirect("calibration:index")


def export(request):
    """The reviewed studies as a pre-scored calibration file (JSON lines)."""
    require_site_admin(request.user)
    n_samples = request.GET.get("n_samples")
    try:
        n = int(n_samples) if n_samples else None
    except ValueError:
        raise Http404("n_samples must be a whole number") from None
    reviewed = services.export_reviewed(actor=request.user, n_samples=n)
    if not reviewed.records:
        # An empty file would say nothing: back to the page, which says why.
        messages.error(request, f"Nothing to download. {reviewed.why_empty()}")
        return redirect("calibration:index")
    response = HttpResponse(reviewed.jsonl(), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="reviewed-studies.jsonl"'
    response["X-Reports"] = str(len(reviewed.records))
    response["X-Left-Out"] = str(reviewed.left_out)
    response["X-Left-Out-Other-N"] = str(reviewed.left_out_other_n)
    return response


# --- the system combination's calibration ---------------------------------------------------


@require_POST
def combination_fit(request):
    require_site_admin(request.user)
    form = CombinationFitForm(request.POST)
    if not form.is_valid():
        return _page(request, CalibrationRunForm(), status=400, combination_form=form)
    try:
        fitted = combination.fit(alpha=form.cleaned_data["alpha"], actor=request.user)
    except services.CalibrationRejected as exc:
        form.add_error(None, exc.message)
        return _page(request, CalibrationRunForm(), status=400, combination_form=form)
    return redirect("calibration:combination_detail", pk=fitted.pk)


def combination_detail(request, pk: int):
    require_site_admin(request.user)
    fitted = get_object_or_404(CombinationCalibration.objects.select_related("created_by"), pk=pk)
    active = combination.active()
    return render(request, "calibration/combination.html", {
        "calibration": fitted, "result": fitted.result,
        "map_rows": list(zip(*(fitted.result["map"][key]
                               for key in ("starts", "probabilities", "counts")))),
        "is_active": active is not None and active.pk == fitted.pk,
        "settings_changed": fitted.result.get("settings") != combination.settings_snapshot(),
    })


@require_POST
def combination_activate(request, pk: int):
    require_site_admin(request.user)
    fitted = get_object_or_404(CombinationCalibration, pk=pk)
    combination.activate(fitted, actor=request.user)
    messages.success(request, f"The combination now flags with its calibration version "
                              f"{fitted.version}.")
    return redirect("calibration:combination_detail", pk=pk)


@require_POST
def combination_raw(request):
    require_site_admin(request.user)
    combination.activate(None, actor=request.user)
    messages.success(request, "The combination now flags on its raw score and the site's flag "
                              "threshold.")
    return redirect("calibration:index")
