"""Review pages: htmx actions on the study page, the poll, signed versions and their exports.

Every action answers with the re-rendered review region (``templates/review/_review.html``):
200 when it worked, 409 with the up-to-date region and a message when the reviewer acted on a
stale version, 422 when the action cannot be done. Without htmx the same URLs redirect back to
the study page with a message.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from radreview.audit.services import record_event
from radreview.dicomnet import selectors as delivery_selectors
from radreview.studies.models import Study
from radreview.studies.selectors import study_with_everything

from . import selectors, services
from .exports import BUILDERS
from .models import Decision, SignOff

ACTION_DONE = {
    Decision.Action.ACCEPT: "Accepted the flag on sentence {n}.",
    Decision.Action.REJECT: "Rejected the flag on sentence {n}; the sentence stays.",
    Decision.Action.EDIT: "Edited sentence {n}.",
}


def poll_seconds() -> int:
    return getattr(settings, "REVIEW_POLL_SECONDS", 5)


def review_context(
    request, study: Study, state: selectors.ReviewState | None = None, **extra
) -> dict:
    """What ``review/_review.html`` needs; shared with the study page."""
    state = state or selectors.review_state(study)
    return {
        "study": study,
        "review": state,
        "can_decide": request.user.is_radiologist and state.reviewable,
        "poll_seconds": poll_seconds(),
        "export_formats": BUILDERS,
        "attestation": services.ATTESTATION,
        "signer": services.signer_identity(request.user),
        "deliveries": delivery_selectors.deliveries_of(study),
        **extra,
    }


def _load(pk: int) -> Study:
    try:
        return study_with_everything(pk)
    except Study.DoesNotExist:
        raise Http404("No such study") from None


def _answer(request, pk: int, *, status: int = 200, message: str = "", notice: str = ""):
    if not request.htmx:
        if message:
            messages.error(request, message)
        elif notice:
            messages.success(request, notice)
        return redirect("studies:detail", pk=pk)
    study = _load(pk)
    context = review_context(request, study, message=message, notice=notice, oob_status=True)
    return render(request, "review/_review.html", context, status=status)


def _act(request, pk: int, action):
    get_object_or_404(Study.objects.only("pk"), pk=pk)
    try:
        notice = action()
    except services.StaleVersion as exc:
        return _answer(request, pk, status=409, message=exc.message)
    except services.ReviewError as exc:
        return _answer(request, pk, status=422, message=exc.message)
    return _answer(request, pk, notice=notice)


@require_POST
def decide(request, pk: int):
    data = request.POST

    def action():
        outcome = services.decide(
            Study(pk=pk),
            request.user,
            action=data.get("action", ""),
            sentence_index=data.get("sentence"),
            version=data.get("version"),
            detection_id=data.get("detection") or None,
            text=data.get("text"),
        )
        return ACTION_DONE[outcome.decision.action].format(n=outcome.decision.sentence.index + 1)

    return _act(request, pk, action)


@require_POST
def undo(request, pk: int):
    def action():
        outcome = services.undo_last(
            Study(pk=pk), request.user, version=request.POST.get("version")
        )
        undone = outcome.decision.undoes
        where = f" on sentence {undone.sentence.index + 1}" if undone.sentence else ""
        return f"Undid the {undone.get_action_display().lower()}{where}."

    return _act(request, pk, action)


@require_POST
def sign(request, pk: int):
    def action():
        outcome = services.sign(Study(pk=pk), request.user, version=request.POST.get("version"),
                                password=request.POST.get("password", ""),
                                attested=request.POST.get("attest") in ("1", "on", "yes"))
        return f"Signed version {outcome.signoff.version}."

    return _act(request, pk, action)


@require_GET
def poll(request, pk: int):
    """204 while the review is unchanged since ``version``; else the fresh region."""
    current = Study.objects.filter(pk=pk).values_list("review_version", flat=True).first()
    if current is None:
        raise Http404("No such study")
    try:
        seen = int(request.GET.get("version", ""))
    except ValueError:
        seen = -1
    if seen == current:
        return HttpResponse(status=204)
    change = services.latest_change(Study(pk=pk), current)
    notice = "Updated with a change made elsewhere" + (f" ({change})." if change else ".")
    return _answer(request, pk, notice=notice)


def _signoff(pk: int, version: int) -> SignOff:
    try:
        return selectors.signoff_for(Study(pk=pk), version)
    except SignOff.DoesNotExist:
        raise Http404("No such signed version") from None


@require_GET
def signed_version(request, pk: int, version: int):
    signoff = _signoff(pk, version)
    later = SignOff.objects.filter(study_id=pk, version__gt=version).exists()
    record_event("study_viewed", actor=request.user, study=signoff.study,
                 detail={"via": "page", "signed_version": version})
    return render(request, "review/signed.html", {
        "study": signoff.study, "signoff": signoff, "superseded": later, "export_formats": BUILDERS,
    })


@require_GET
def export(request, pk: int, version: int, fmt: str):
    signoff = _signoff(pk, version)
    if fmt not in BUILDERS:
        raise Http404("No such export format")
    try:
        content, filename, media_type = services.export(signoff, fmt, request.user)
    except services.ReviewError as exc:
        return HttpResponse(exc.message, status=409, content_type="text/plain; charset=utf-8")
    response = HttpResponse(content, content_type=media_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
