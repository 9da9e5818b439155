"""Review pages: htmx actions on the study page, the poll, signed versions and their exports.

A decision or an undo that worked answers with only what it changed
(``templates/review/_changes.html``): the decided sentence and its editor, the panels that show
it, the counters, the undo button, the sign-off box, the decision log, the version and the
notice, each an out-of-band swap (``HX-Reswap: none``), so that twenty reviewers deciding at
once cost the server a fraction of the whole region (docs/operations.md, "Load"). Signing, the
poll, 409 (the reviewer acted on a stale version: the up-to-date region and a message) and 422
(the action cannot be done) answer with the whole region (``templates/review/_review.html``).
Without htmx the same URLs redirect back to the study page with a message.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST

from radreview.audit.services import record_study_view
from radreview.dicomnet import selectors as delivery_selectors
from radreview.outages import middleware as outages
from radreview.studies.models import Study

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
        # PACS deliveries are made of sign-offs: none to read before the first.
        "deliveries": delivery_selectors.deliveries_of(study) if state.signoffs else [],
        **extra,
    }


def _load(pk: int) -> Study:
    try:
        return selectors.study_for_review(pk)
    except Study.DoesNotExist:
        raise Http404("No such study") from None


def _answer(request, pk: int, *, status: int = 200, message: str = "", notice: str = "",
            changed: frozenset[int] | None = None):
    """The page's answer: a redirect without htmx; with it the whole region, or with
    ``changed`` (the indices of the sentences an action changed) only what changed."""
    if not request.htmx:
        if message:
            messages.error(request, message)
        elif notice:
            messages.success(request, notice)
        return redirect("studies:detail", pk=pk)
    if changed is None:
        study = _load(pk)
        context = review_context(request, study, message=message, notice=notice, oob_status=True)
        return render(request, "review/_review.html", context, status=status)
    # Only the changed panels are shown: only their sentences' histories are read.
    study, report, signoffs = selectors.study_for_answer(pk)
    state = selectors.review_state(study, report, sentence_history=False, signoffs=signoffs)
    panels = [s for s in state.sentences if _shows_any(s, changed)]
    selectors.add_sentence_history(study, panels, state.decisions)
    context = review_context(request, study, state, message=message, notice=notice,
                             oob_status=True, changed_panels=panels,
                             changed_sentences=[s for s in state.sentences if s.index in changed])
    response = render(request, "review/_changes.html", context, status=status)
    # Every part is swapped out of band; the region itself stays (htmx 2: "none" still swaps
    # them, and settles at once so that the new buttons answer the next key at once).
    response["HX-Reswap"] = "none settle:0ms"
    return response


def _shows_any(view: selectors.SentenceView, changed: frozenset[int]) -> bool:
    """Whether a sentence's panel shows one of the changed sentences: its own, or a flag's
    reading that quotes what another sentence now reads."""
    if view.index in changed:
        return True
    readings = view.flag.readings if view.flag else []
    return any(reading.get("sentence") in changed for reading in readings)


def _act(request, pk: int, action, *, partial: bool = False):
    """Run ``action`` (it returns the notice and the indices of the sentences it changed) and
    answer; ``partial``: a success answers with only what changed."""
    try:
        notice, changed = action()
    except Study.DoesNotExist:  # the version claim found no such study (no query of its own)
        raise Http404("No such study") from None
    except services.StaleVersion as exc:
        return _answer(request, pk, status=409, message=exc.message)
    except services.ReviewError as exc:
        return _answer(request, pk, status=422, message=exc.message)
    outages.answer_if_unavailable(request, lambda: _saved_answer(request, pk, notice))
    return _answer(request, pk, notice=notice, changed=changed if partial else None)


def _saved_answer(request, pk: int, notice: str) -> HttpResponse:
    """The answer when the database goes away after the action was committed, without it: the
    notice says it is saved, the region stays, and the page's poll brings the saved state once
    the database answers (the page still holds the old version). Without htmx, back to the
    study page, which shows it then."""
    if not request.htmx:
        return redirect("studies:detail", pk=pk)
    notice = f"{notice} It is saved; the page shows it once the server answers again."
    response = HttpResponse(render_to_string("review/_feedback.html",
                                             {"oob": True, "notice": notice}))
    response["HX-Reswap"] = "none"
    return response


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
        index = outcome.decision.sentence.index
        return ACTION_DONE[outcome.decision.action].format(n=index + 1), frozenset({index})

    return _act(request, pk, action, partial=True)


@require_POST
def undo(request, pk: int):
    def action():
        outcome = services.undo_last(
            Study(pk=pk), request.user, version=request.POST.get("version")
        )
        undone = outcome.decision.undoes
        where = f" on sentence {undone.sentence.index + 1}" if undone.sentence else ""
        changed = frozenset({undone.sentence.index} if undone.sentence else ())
        return f"Undid the {undone.get_action_display().lower()}{where}.", changed

    return _act(request, pk, action, partial=True)


@require_POST
def sign(request, pk: int):
    def action():
        outcome = services.sign(Study(pk=pk), request.user, version=request.POST.get("version"),
                                password=request.POST.get("password", ""),
                                attested=request.POST.get("attest") in ("1", "on", "yes"))
        return f"Signed version {outcome.signoff.version}.", frozenset()

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
    record_study_view(request.user, signoff.study, via="page", signed_version=version)
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
