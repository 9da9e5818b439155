"""A report typed or pasted on the study page by the radiologist, for a study that waits for
one: the same delivery as a report from dictation (services.py), attached to this study."""
from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_radiologist
from radreview.studies.models import Study

from .models import IncomingReport
from .services import DeliveryRefused, ReportDelivery, deliver


@require_POST
def typed_report(request, pk: int):
    require_radiologist(request.user)
    study = get_object_or_404(Study, pk=pk)
    if study.audited_report is not None:
        messages.error(request, "This study already has a report; a new version comes from the "
                                "dictation system.")
        return redirect("studies:detail", pk=pk)
    delivery = ReportDelivery(channel=IncomingReport.Channel.TYPED,
                              text=request.POST.get("report_text", ""),
                              accession_number=study.accession_number,
                              sender=request.user.get_username())
    try:
        deliver(delivery, study=study, user=request.user)
    except DeliveryRefused as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, "The report is being checked.")
    return redirect("studies:detail", pk=pk)
