"""Whether the DICOM receiver is running, as the setup checklist shows it.

The receiver is its own process; it writes a heartbeat to the shared cache (the database
cache every process sees) and the web pages read it.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

HEARTBEAT_KEY = "dicomnet:receiver-heartbeat"
HEARTBEAT_SECONDS = 5
# Missing this many beats in a row means the receiver is not running.
STALE_AFTER_SECONDS = 6 * HEARTBEAT_SECONDS


@dataclass(frozen=True)
class ReceiverStatus:
    running: bool
    ae_title: str
    host: str
    port: int
    seen_at: datetime | None


def record_heartbeat(ae_title: str, host: str, port: int) -> None:
    cache.set(HEARTBEAT_KEY, {"ae_title": ae_title, "host": host, "port": port,
                              "at": timezone.now().isoformat()}, timeout=STALE_AFTER_SECONDS * 10)


def clear_heartbeat() -> None:
    cache.delete(HEARTBEAT_KEY)


def receiver_status() -> ReceiverStatus:
    beat = cache.get(HEARTBEAT_KEY)
    if not beat:
        return ReceiverStatus(False, settings.DICOM_AE_TITLE, settings.DICOM_HOST,
                              settings.DICOM_PORT, None)
    seen = datetime.fromisoformat(beat["at"])
    running = (timezone.now() - seen).total_seconds() < STALE_AFTER_SECONDS
    return ReceiverStatus(running, beat["ae_title"], beat["host"], beat["port"], seen)
