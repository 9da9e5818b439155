"""Putting back the jobs that a dead worker left behind.

Run when a worker starts. The filesystem transport deletes a message as soon as a worker
fetches it, so a worker killed mid-stage loses its message: the job row still says "running"
(or "queued", if it died between fetching and claiming). A running job is orphaned when its
claimant was a process on this host that no longer exists, or when its heartbeat is older
than JOB_STALE_AFTER_SECONDS (a worker on another host). Queued jobs are sent again: a
duplicate message is harmless because only one worker can claim a job.
"""
from __future__ import annotations

import logging
import os
import socket
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.studies.models import Study

from . import services
from .models import Job

logger = logging.getLogger(__name__)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def claimant_is_gone(claimed_by: str, host: str | None = None) -> bool:
    """True when the claim was made by a process of this host that has since died."""
    claimant_host, _, pid = claimed_by.rpartition(":")
    if claimant_host != (host or socket.gethostname()) or not pid.isdigit():
        return False
    return int(pid) != os.getpid() and not _process_exists(int(pid))


def requeue_orphans() -> list[int]:
    """Requeue running jobs whose worker is gone (or fail them after too many tries)."""
    stale_before = timezone.now() - timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS)
    requeued = []
    with transaction.atomic():
        running = Job.objects.select_for_update(of=("self",)).filter(state=Job.State.RUNNING)
        for job in running:
            if not (
                claimant_is_gone(job.claimed_by)
                or (job.heartbeat_at and job.heartbeat_at < stale_before)
            ):
                continue
            if job.attempts >= settings.JOB_MAX_ATTEMPTS:
                Job.objects.filter(pk=job.pk).update(
                    state=Job.State.FAILED, claim_token=None, finished_at=timezone.now(),
                    error=f"The worker running this stage stopped {job.attempts} times; giving up.",
                )
                if job.study_id:
                    Study.objects.filter(pk=job.study_id).update(status=Study.Status.FAILED)
                record_event(
                    "stage_failed",
                    study=job.study,
                    detail={"stage": job.stage, "error": "worker lost"},
                )
                continue
            Job.objects.filter(pk=job.pk).update(
                state=Job.State.QUEUED, claim_token=None, queued_at=timezone.now()
            )
            record_event(
                "stage_requeued",
                study=job.study,
                detail={"stage": job.stage, "attempt": job.attempts},
            )
            logger.warning("job %s (%s) lost its worker; requeued", job.pk, job)
            transaction.on_commit(lambda job=job: services.send_or_defer(job.pk, job.queue))
            requeued.append(job.pk)
    return requeued


def recover_orphaned_jobs() -> list[int]:
    """At worker start: requeue orphaned running jobs and resend every queued one; return
    the ids sent. (While workers run, reconcile.py does this continuously.)"""
    sent = requeue_orphans()
    with transaction.atomic():
        for job in Job.objects.filter(Q(state=Job.State.QUEUED)).exclude(pk__in=sent):
            transaction.on_commit(lambda job=job: services.send_or_defer(job.pk, job.queue))
            sent.append(job.pk)
    return sent
