"""Drafting-quality reads: per drafting model version and per signing week, the studies signed,
the draft's errors per study by category (significant and all), the share of drafts signed
unchanged; and the studies behind each of those numbers. The page, its plot and its CSV read
the same rows.

Only each study's latest sign-off counts (``DraftComparison.current``). Errors per study are
taken over the studies already compared; a study still waiting for its comparison counts as
signed, and the row says how many wait.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from urllib.parse import urlencode

from django.db.models import Count, Q, QuerySet, Sum
from django.urls import reverse
from django.utils import timezone

from radreview.jobs.models import Job
from workers.compare.categories import CATEGORIES, KEYS

from .models import DraftComparison, DraftError
from .stage import COMPARE_STAGE

DEFAULT_WEEKS = 26
MAX_WEEKS = 520


@dataclass(frozen=True)
class Filters:
    """Which studies a number stands for: one model version's drafts signed in one week, and
    optionally those with an error of a category (significant ones only), or those signed
    unchanged."""

    model_name: str
    model_version: str
    week: date | None = None
    category: str = ""
    significant: bool = False
    unchanged: bool = False
    with_errors: bool = False  # any error (of the category, when one is named)

    @classmethod
    def from_query(cls, query) -> Filters:
        """Raises ValueError naming the bad parameter."""
        week = query.get("week") or None
        if week is not None:
            try:
                week = date.fromisoformat(week)
            except ValueError:
                raise ValueError("week must be a date (YYYY-MM-DD)") from None
        category = query.get("category", "")
        if category and category not in KEYS:
            raise ValueError(f"unknown category {category!r}")
        return cls(model_name=query.get("model", ""), model_version=query.get("version", ""),
                   week=week, category=category, significant=query.get("significant") == "1",
                   unchanged=query.get("unchanged") == "1",
                   with_errors=query.get("errors") == "1" or bool(category))

    def url(self) -> str:
        params = {"model": self.model_name, "version": self.model_version}
        if self.week:
            params["week"] = self.week.isoformat()
        if self.category:
            params["category"] = self.category
        if self.significant:
            params["significant"] = "1"
        if self.unchanged:
            params["unchanged"] = "1"
        if self.with_errors and not self.category:
            params["errors"] = "1"
        return f"{reverse('compare:studies')}?{urlencode(params)}"


@dataclass(frozen=True)
class Figure:
    """A number of the table and the studies behind it."""

    value: float | None
    studies: int
    url: str


@dataclass
class Row:
    model_name: str
    model_version: str
    week: date
    signed: int = 0
    compared: int = 0
    unchanged: int = 0
    errors: int = 0
    significant: int = 0
    by_category: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    significant_by_category: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KEYS, 0))
    # studies with at least one error of a category: (category, significant only) -> count
    studies_with: dict[tuple[str, bool], int] = field(default_factory=dict)

    @property
    def waiting(self) -> int:
        return self.signed - self.compared

    def filters(self, **extra) -> Filters:
        return Filters(self.model_name, self.model_version, self.week, **extra)

    def _per_study(self, count: int) -> float | None:
        return count / self.compared if self.compared else None

    @property
    def signed_figure(self) -> Figure:
        return Figure(self.signed, self.signed, self.filters().url())

    @property
    def unchanged_figure(self) -> Figure:
        share = self.unchanged / self.signed if self.signed else None
        return Figure(share, self.unchanged, self.filters(unchanged=True).url())

    def per_study(self, category: str = "", significant: bool = False) -> Figure:
        """Errors per compared study: of one category ("" for all), significant ones only."""
        if category:
            count = (self.significant_by_category if significant else self.by_category)[category]
        else:
            count = self.significant if significant else self.errors
        studies = self.studies_with.get((category, significant), 0)
        return Figure(self._per_study(count), studies,
                      self.filters(category=category, significant=significant,
                                   with_errors=True).url())

    @property
    def cells(self) -> list[tuple[Figure, Figure]]:
        """(significant, all) per category, in the categories' order, then for all errors."""
        return [(self.per_study(c.key, True), self.per_study(c.key)) for c in CATEGORIES] + [
            (self.per_study("", True), self.per_study(""))]


def since(weeks: int) -> date:
    today = timezone.localdate()
    monday = today - timedelta(days=today.weekday())
    return monday - timedelta(weeks=weeks - 1)


def _current(weeks: int) -> QuerySet[DraftComparison]:
    return DraftComparison.objects.filter(current=True, week__gte=since(weeks))


def rows(weeks: int = DEFAULT_WEEKS) -> list[Row]:
    """One row per model version and signing week, newest week first, in three queries."""
    done = Q(state=DraftComparison.State.DONE)
    found: dict[tuple[str, str, date], Row] = {}
    for r in _current(weeks).values("model_name", "model_version", "week").annotate(
            signed=Count("id"), compared=Count("id", filter=done),
            unchanged=Count("id", filter=Q(unchanged=True)),
            errors=Sum("errors_total", filter=done),
            significant=Sum("errors_significant", filter=done)):
        key = (r["model_name"], r["model_version"], r["week"])
        found[key] = Row(*key, signed=r["signed"], compared=r["compared"],
                         unchanged=r["unchanged"], errors=r["errors"] or 0,
                         significant=r["significant"] or 0)
    errors = DraftError.objects.filter(comparison__current=True,
                                       comparison__week__gte=since(weeks))
    prefix = "comparison__"
    keys = [f"{prefix}model_name", f"{prefix}model_version", f"{prefix}week"]
    for r in errors.values(*keys, "category").annotate(
            n=Count("id"), significant_n=Count("id", filter=Q(significant=True)),
            studies=Count("comparison", distinct=True),
            significant_studies=Count("comparison", distinct=True,
                                      filter=Q(significant=True))):
        row = found.get(tuple(r[k] for k in keys))
        if row is None or r["category"] not in row.by_category:
            continue
        row.by_category[r["category"]] = r["n"]
        row.significant_by_category[r["category"]] = r["significant_n"]
        row.studies_with[(r["category"], False)] = r["studies"]
        row.studies_with[(r["category"], True)] = r["significant_studies"]
    for r in _current(weeks).filter(done).values("model_name", "model_version", "week").annotate(
            any_error=Count("id", filter=Q(errors_total__gt=0)),
            any_significant=Count("id", filter=Q(errors_significant__gt=0))):
        row = found[(r["model_name"], r["model_version"], r["week"])]
        row.studies_with[("", False)] = r["any_error"]
        row.studies_with[("", True)] = r["any_significant"]
    return sorted(found.values(), key=lambda r: (-r.week.toordinal(), r.model_name,
                                                 r.model_version))


def studies(filters: Filters) -> QuerySet[DraftComparison]:
    """The comparisons (one per study) a number stands for, newest first, with their study
    and their errors."""
    chosen = DraftComparison.objects.filter(
        current=True, model_name=filters.model_name, model_version=filters.model_version)
    if filters.week:
        chosen = chosen.filter(week=filters.week)
    if filters.unchanged:
        chosen = chosen.filter(unchanged=True)
    if filters.category:
        having = {"errors__category": filters.category}
        if filters.significant:
            having["errors__significant"] = True
        chosen = chosen.filter(**having).distinct()
    elif filters.with_errors:
        chosen = chosen.filter(**{"errors_significant__gt" if filters.significant
                                  else "errors_total__gt": 0})
    return chosen.select_related("study", "signoff").prefetch_related("errors").order_by(
        "-signed_at", "-id")


def failed_jobs(comparisons) -> dict[int, Job]:
    """The failed comparison job of each of ``comparisons`` that has one, by comparison id."""
    ids = [c.pk for c in comparisons if c.state == DraftComparison.State.PENDING]
    if not ids:
        return {}
    jobs = Job.objects.filter(stage=COMPARE_STAGE, state=Job.State.FAILED,
                              params__comparison__in=ids)
    return {job.params["comparison"]: job for job in jobs}


def weeks_from(query) -> int:
    try:
        weeks = int(query.get("weeks", DEFAULT_WEEKS))
    except (TypeError, ValueError):
        return DEFAULT_WEEKS
    return min(max(weeks, 1), MAX_WEEKS)
