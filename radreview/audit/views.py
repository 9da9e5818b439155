"""Audit trail pages: one study's trail (any reviewer), the whole site's (admins), CSV export."""
from __future__ import annotations

import csv
import json

from django.core.paginator import Paginator
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from radreview.accounts.permissions import require_site_admin
from radreview.studies.models import Study

from . import selectors
from .services import record_event

PAGE_SIZE = 50
CSV_HEADER = ["time", "action", "actor", "study", "detail"]


def _page(request, queryset):
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))


@require_GET
def study_trail(request, pk: int):
    study = get_object_or_404(Study, pk=pk)
    filters = selectors.AuditFilters.from_query(request.GET)
    return render(request, "audit/trail.html", {
        "study": study, "filters": filters, "page": _page(request, selectors.events(filters, study_id=pk)),
        "actions": selectors.actions(pk), "actors": selectors.actors(pk),
    })


@require_GET
def site_trail(request):
    require_site_admin(request.user)
    filters = selectors.AuditFilters.from_query(request.GET)
    return render(request, "audit/trail.html", {
        "study": None, "filters": filters, "page": _page(request, selectors.events(filters)),
        "actions": selectors.actions(), "actors": selectors.actors(),
    })


class _Echo:
    def write(self, value):
        return value


def _cell(value) -> str:
    """A CSV cell a spreadsheet will not run as a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _rows(queryset):
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_HEADER)
    for event in queryset.iterator(chunk_size=500):
        yield writer.writerow([
            _cell(timezone.localtime(event.created_at).isoformat()), _cell(event.action),
            _cell(event.actor.get_username() if event.actor else ""), _cell(event.study_id or ""),
            _cell(json.dumps(event.shown_detail, sort_keys=True, ensure_ascii=False)),
        ])


@require_GET
def export_csv(request):
    require_site_admin(request.user)
    filters = selectors.AuditFilters.from_query(request.GET)
    record_event("audit_exported", actor=request.user, detail={
        key: str(value) for key, value in vars(filters).items() if value not in ("", None)
    })
    response = StreamingHttpResponse(_rows(selectors.events(filters)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="audit-{timezone.localdate():%Y%m%d}.csv"'
    response["Cache-Control"] = "no-store"
    return response
