"""Who has a study's page open now: the worklist's "Reading" column.

The study page records its radiologist when it opens and every POLL_SECONDS after (a hidden
htmx poll, which does not count as activity for the idle logoff). A presence not renewed for
PRESENCE_SECONDS has expired: the page was closed, the browser went to sleep or the session
ended. Admins read studies without reading them for a report, so only radiologists count.
"""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from ..models import Presence

POLL_SECONDS = 30
# Four polls missed in a row: long enough for a slow network, short enough that a colleague
# who closed the study is not shown reading it for long.
PRESENCE_SECONDS = 120


def expired_before():
    return timezone.now() - timedelta(seconds=PRESENCE_SECONDS)


def record(study_id: int, user) -> None:
    """The user has the study open now (radiologists only): one upsert."""
    if user.is_radiologist:
        Presence.objects.bulk_create(
            [Presence(study_id=study_id, user=user, seen_at=timezone.now())],
            update_conflicts=True, unique_fields=["study", "user"], update_fields=["seen_at"])


def forget_expired() -> None:
    """Remove the presences that have expired (they are never shown again)."""
    Presence.objects.filter(seen_at__lt=expired_before()).delete()
