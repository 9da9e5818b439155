"""Writing the audit trail. Every service that changes something calls ``record_event``."""
from __future__ import annotations

from typing import Any

from .models import AuditEvent


def record_event(
    action: str, *, actor=None, study=None, detail: dict[str, Any] | None = None
) -> AuditEvent:
    if actor is not None and not getattr(actor, "is_authenticated", False):
        actor = None
    return AuditEvent.objects.create(action=action, actor=actor, study=study, detail=detail or {})
