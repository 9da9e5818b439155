"""Audit trail pages: one study's trail (any reviewer), the whole site's (admins), CSV export."""
from __future__ import annotations

import csv
import json
import logging

from django.core.paginator import Paginator
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from radreview.accounts.permissions import require_site_admin
from radreview.csv_cells import INCOMPLETE
from radreview.csv_cells import Echo as _Echo
from radreview.csv_cells import cell as _cell
from radreview.studies.models import Study

from . import selectors
from .services import record_event

logger = logging.getLogger(__name__)

PAGE_SIZE = 50
CSV_HEADER = ["time", "action", "actor", "study", "detail"]


def _page(request, queryset):
    return Paginator(queryset, PAGE_SIZE).get_page(request.GET.get("page"))


@require_GET
def study_trail(request, pk: int):
    study = get_object_or_404(Study, pk=pk)
    filters = selectors.AuditFilters.from_query(request.GET)
    return render(
        request,
        "audit/trail.html",
        {
            "study": study,
            "filters": filters,
            "page": _page(request, selectors.events(filters, study_id=pk)),
            "actions": selectors.actions(pk),
            "actors": selectors.actors(pk),
        },
    )


@require_GET
def site_trail(request):
    require_site_admin(request.user)
    filters = selectors.AuditFilters.from_query(request.GET)
    return render(request, "audit/trail.html", {
        "study": None, "filters": filters, "page": _page(request, selectors.events(filters)),
        "actions": selectors.actions(), "actors": selectors.actors(),
    })


def _rows(queryset, total: int):
    """The CSV, row by row. An error midway ends the file with a row saying so, never with a
    file that merely stops (the client has already received a 200 and the first rows)."""
    writer = csv.writer(_Echo())
    yield writer.writerow(CSV_HEADER)
    rows = 0
    try:
        for event in queryset.iterator(chunk_size=500):
            yield writer.writerow([
                _cell(timezone.localtime(event.created_at).isoformat()), _cell(event.action),
                _cell(event.actor.get_username() if event.actor else ""),
                _cell(event.study_id or ""),
                _cell(json.dumps(event.shown_detail, sort_keys=True, ensure_ascii=False)),
            ])
            rows += 1
    except Exception:
        logger.exception("audit export stopped after %s of %s rows", rows, total)
        yield writer.writerow([INCOMPLETE.format(rows=rows, total=total)])


@require_GET
def export_csv(request):
    """The trail as CSV. Filters are checked before the first byte is sent; the row count goes
    in ``X-Export-Rows`` so a client can tell a complete file from a cut one."""
    require_site_admin(request.user)
    try:
        filters = selectors.AuditFilters.strictly_from_query(request.GET)
    except ValueError as exc:
        return HttpResponseBadRequest(f"Nothing exported: {exc}.",
                                      content_type="text/plain; charset=utf-8")
    record_event("audit_exported", actor=request.user, detail={
        key: str(value) for key, value in vars(filters).items() if value not in ("", None)
    })
    events = selectors.events(filters)
    total = events.count()
    response = StreamingHttpResponse(_rows(events, total), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="audit-{timezone.localdate():%Y%m%d}.csv"')
    response["X-Export-Rows"] = str(total)
    return response
