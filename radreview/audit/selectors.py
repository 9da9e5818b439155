"""Reads of the audit trail, with the filters the trail pages offer."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.utils import timezone

from .models import AuditEvent


def _date(value: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(value) if value else None
    except ValueError:
        return None


# Ids are 64-bit; a larger number matches nothing (and must not reach the database, where
# SQLite raises OverflowError on it).
LARGEST_ID = 2**63 - 1
NO_ROW = -1


def _id(value: str | None) -> int | None:
    try:
        number = int(value) if value else None
    except ValueError:
        return None
    return number if number is None or -LARGEST_ID <= number <= LARGEST_ID else NO_ROW


@dataclass(frozen=True)
class AuditFilters:
    """Filters from a query string; values that do not parse are ignored."""

    action: str = ""
    user: int | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None  # inclusive
    study: int | None = None

    @classmethod
    def from_query(cls, query) -> AuditFilters:
        return cls(
            action="".join(ch for ch in query.get("action", "") if ch.isprintable()).strip()[:64],
            user=_id(query.get("user")),
            date_from=_date(query.get("from")),
            date_to=_date(query.get("to")),
            study=_id(query.get("study")),
        )

    @classmethod
    def strictly_from_query(cls, query) -> AuditFilters:
        """The filters, refusing (ValueError, with the reason) a value that does not parse:
        an export states exactly what it holds, so it never quietly drops a filter."""
        for name in ("user", "study"):
            value = query.get(name)
            if value and (_id(value) in (None, NO_ROW)):
                raise ValueError(f"{name} must be the id of a {name} (a whole number)")
        for name in ("from", "to"):
            if query.get(name) and _date(query.get(name)) is None:
                raise ValueError(f"{name} must be a date written YYYY-MM-DD")
        return cls.from_query(query)

    @property
    def active(self) -> bool:
        return any((self.action, self.user, self.date_from, self.date_to, self.study))


def _start_of(day: dt.date) -> dt.datetime:
    return timezone.make_aware(dt.datetime.combine(day, dt.time.min))


def events(filters: AuditFilters, *, study_id: int | None = None) -> QuerySet[AuditEvent]:
    """Events, newest first; ``study_id`` pins the trail to one study."""
    queryset = AuditEvent.objects.select_related("actor").order_by("-created_at", "-id")
    study = study_id if study_id is not None else filters.study
    if study is not None:
        queryset = queryset.filter(study_id=study)
    if filters.action:
        queryset = queryset.filter(action=filters.action)
    if filters.user is not None:
        queryset = queryset.filter(actor_id=filters.user)
    if filters.date_from:
        queryset = queryset.filter(created_at__gte=_start_of(filters.date_from))
    if filters.date_to:
        queryset = queryset.filter(created_at__lt=_start_of(filters.date_to + dt.timedelta(days=1)))
    return queryset


def actions(study_id: int | None = None) -> list[str]:
    queryset = AuditEvent.objects.all()
    if study_id is not None:
        queryset = queryset.filter(study_id=study_id)
    return sorted(set(queryset.values_list("action", flat=True).order_by().distinct()))


def actors(study_id: int | None = None):
    User = get_user_model()
    if study_id is None:
        return User.objects.order_by("username")
    return User.objects.filter(audit_events__study_id=study_id).distinct().order_by("username")
