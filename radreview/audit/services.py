"""Writing the audit trail. Every service that changes something calls ``record_event``; every
read of a study's patient data calls ``record_study_view``."""
from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.utils import timezone

from .models import AuditEvent


def record_event(
    action: str, *, actor=None, study=None, detail: dict[str, Any] | None = None
) -> AuditEvent:
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    return AuditEvent.objects.create(action=action, actor=actor, study=study, detail=detail or {})


def record_study_view(actor, study, *, via: str, **detail) -> AuditEvent | None:
    """A view of ``study`` by ``actor`` (``via``: page, api, dicomweb, export): recorded when it
    is the user's first view of the study in STUDY_VIEW_AUDIT_SECONDS, so that a client
    polling a study writes one row per window instead of one per poll (the trail is the
    memory: a view is skipped only when one of the same user and study is in it, at most that
    long ago). Returns the event, or None when the window already has one."""
    window = settings.STUDY_VIEW_AUDIT_SECONDS
    user = actor if getattr(actor, "is_authenticated", False) else None
    if window and user is not None and AuditEvent.objects.filter(
            action="study_viewed", actor=user, study_id=study.pk,
            created_at__gte=timezone.now() - dt.timedelta(seconds=window)).exists():
        return None
    return record_event("study_viewed", actor=user, study=study, detail={"via": via, **detail})
