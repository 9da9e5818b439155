"""The admins' setup checklist: what is done and the next step for each part of the site."""
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from radreview.accounts.permissions import require_site_admin
from radreview.audit.services import record_event
from radreview.dicomnet import selectors as dicom_selectors
from radreview.dicomnet.sender import Destination, SendFailed, echo

from . import selectors


def checklist(request):
    require_site_admin(request.user)
    steps = selectors.checklist()
    return render(request, "sitesetup/checklist.html", {
        "steps": steps, "remaining": [s for s in steps if not s.done and not s.optional],
        "inbound": dicom_selectors.recent_inbound(), "pacs_store": settings.PACS_STORE,
    })


@require_POST
def echo_pacs(request):
    """C-ECHO the PACS destination, to check the AE title, host and port."""
    require_site_admin(request.user)
    if not settings.PACS_STORE:
        messages.error(request, "No PACS destination is configured.")
        return redirect("sitesetup:checklist")
    destination = Destination(**settings.PACS_STORE)
    try:
        echo(destination, settings.DICOM_AE_TITLE)
    except (SendFailed, OSError) as exc:
        messages.error(request, f"C-ECHO to {destination} failed: {exc}")
    else:
        messages.success(request, f"C-ECHO to {destination} succeeded.")
    record_event("pacs_echo", actor=request.user, detail={"destination": str(destination)})
    return redirect("sitesetup:checklist")
