"""Whether the single-machine default is what limits this site right now (issue 15).

The embedded default (SQLite, Celery over the filesystem broker) runs everything on one
machine: one database writer at a time and workers that share its folder. When jobs pile up
there, more patience will not help; moving to PostgreSQL + Redis and adding workers will. The
worklist and the upload page say so, so nobody mistakes the limit of the shape for a fault.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import connection

from .models import Job


@dataclass(frozen=True)
class SingleMachineLimit:
    queued: int  # jobs waiting for a worker
    threshold: int  # the notice shows above this many (SINGLE_MACHINE_QUEUE_NOTICE)
    parts: tuple[str, ...]  # what of this site is single-machine, in words


def database_vendor() -> str:
    return connection.vendor


def single_machine_parts() -> tuple[str, ...]:
    parts = []
    if database_vendor() == "sqlite":
        parts.append("SQLite")
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        parts.append("the filesystem job queue")
    return tuple(parts)


def single_machine_limit() -> SingleMachineLimit | None:
    """The notice's content when this site runs a single-machine part and more than
    SINGLE_MACHINE_QUEUE_NOTICE jobs are queued; None otherwise (then no query is made)."""
    parts = single_machine_parts()
    threshold = settings.SINGLE_MACHINE_QUEUE_NOTICE
    if not parts or threshold <= 0:
        return None
    queued = Job.objects.filter(state=Job.State.QUEUED).count()
    return SingleMachineLimit(queued, threshold, parts) if queued > threshold else None
