"""The drafting-quality page (admins): per drafting model version and week, the drafts' errors
against the signed reports, a plot over time, a CSV export, and the studies behind each number."""
from __future__ import annotations

import csv
import logging

from django.core.paginator import Paginator
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from radreview.accounts.permissions import require_site_admin
from radreview.audit.services import record_event
from radreview.csv_cells import INCOMPLETE, Echo, cell
from workers.compare.categories import CATEGORIES

from . import plot, selectors, services
from .models import DraftComparison

logger = logging.getLogger(__name__)

STUDIES_PAGE = 50


@require_GET
def index(request):
    require_site_admin(request.user)
    weeks = selectors.weeks_from(request.GET)
    rows = selectors.rows(weeks)
    return render(request, "compare/index.html", {
        "rows": rows, "weeks": weeks, "categories": CATEGORIES, "plot": plot.build(rows),
    })


@require_GET
def studies(request):
    require_site_admin(request.user)
    try:
        filters = selectors.Filters.from_query(request.GET)
    except ValueError as exc:
        return HttpResponseBadRequest(f"Nothing to show: {exc}.",
                                      content_type="text/plain; charset=utf-8")
    page = Paginator(selectors.studies(filters), STUDIES_PAGE).get_page(request.GET.get("page"))
    category = next((c for c in CATEGORIES if c.key == filters.category), None)
    failed = selectors.failed_jobs(page.object_list)
    for comparison in page:
        comparison.failed_job = failed.get(comparison.pk)
    return render(request, "compare/studies.html", {
        "filters": filters, "page": page, "category": category,
        "version_label": plot.version_label(filters.model_name, filters.model_version),
    })


@require_POST
def retry(request, pk: int):
    require_site_admin(request.user)
    comparison = get_object_or_404(DraftComparison, pk=pk)
    services.retry_comparison(comparison, actor=request.user)
    back = selectors.Filters(model_name=comparison.model_name,
                             model_version=comparison.model_version, week=comparison.week)
    return redirect(back.url())


def _header() -> list[str]:
    header = ["model", "version", "week", "studies_signed", "studies_compared",
              "awaiting_comparison", "signed_unchanged_share"]
    for c in CATEGORIES:
        header += [f"{c.key}_per_study", f"{c.key}_significant_per_study"]
    return header + ["errors_per_study", "significant_errors_per_study"]


def _number(value) -> str:
    return "" if value is None else f"{value:.4f}"


def _csv(rows: list[selectors.Row]):
    writer = csv.writer(Echo())
    yield writer.writerow(_header())
    written = 0
    try:
        for row in rows:
            cells = [cell(row.model_name), cell(row.model_version), row.week.isoformat(),
                     row.signed, row.compared, row.waiting, _number(row.unchanged_figure.value)]
            for c in CATEGORIES:
                cells += [_number(row.per_study(c.key).value),
                          _number(row.per_study(c.key, True).value)]
            cells += [_number(row.per_study().value), _number(row.per_study("", True).value)]
            yield writer.writerow(cells)
            written += 1
    except Exception:
        logger.exception("drafting-quality export stopped after %s of %s rows", written,
                         len(rows))
        yield writer.writerow([INCOMPLETE.format(rows=written, total=len(rows))])


@require_GET
def export_csv(request):
    """The page's table as CSV, one line per model version and week; ``X-Export-Rows`` gives
    the line count, as the audit trail's export does."""
    require_site_admin(request.user)
    weeks = selectors.weeks_from(request.GET)
    rows = selectors.rows(weeks)
    record_event("drafting_quality_exported", actor=request.user, detail={"weeks": weeks})
    response = StreamingHttpResponse(_csv(rows), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="drafting-quality-{timezone.localdate():%Y%m%d}.csv"')
    response["X-Export-Rows"] = str(len(rows))
    return response
