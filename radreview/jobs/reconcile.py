"""Continuous reconciliation: no study stays queued without a message that will run it.

The job rows are the truth; broker messages are only reminders, and they get lost: a Redis
restarted without persistence comes back empty, a send fails while the broker is down, a
worker dies holding a message. Every worker runs ``reconcile_once`` every RECONCILE_SECONDS
on a timer thread of its own (no beat process to deploy), so recovery does not wait for a
worker restart. Each pass:

1. requeues running jobs whose worker is gone (recovery.requeue_orphans);
2. restarts pipelines that stopped between stages (a study processing, a stage pending, and
   nothing queued, running or failed);
3. sends again every job queued for longer than JOB_RESEND_AFTER_SECONDS whose message the
   broker does not hold; a job the broker refused JOB_MAX_SEND_FAILURES times in a row is
   marked failed with the reason, which the study page shows with a Retry button.

Several workers may reconcile at once: each resend is claimed by a conditional update of the
job's ``queued_at`` (only one reconciler wins it), and a duplicate message could only ever
lose the runner's own conditional claim, so no stage runs twice.
"""
from __future__ import annotations

import logging
import threading
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.studies.models import Study

from . import broker, recovery, services
from .models import Job

logger = logging.getLogger(__name__)

ACTIVE_STATES = (Job.State.QUEUED, Job.State.RUNNING, Job.State.FAILED)


def restart_stalled_pipelines() -> list[int]:
    """Queue the next stage of studies whose pipeline stopped between two stages."""
    # A pending stage is required: a study without jobs is left alone, never marked ready.
    stalled = (Study.objects.filter(status__in=(Study.Status.QUEUED, Study.Status.PROCESSING),
                                    jobs__state=Job.State.PENDING)
               .exclude(jobs__state__in=ACTIVE_STATES).values_list("pk", flat=True).distinct())
    restarted = []
    for study_id in stalled:
        with transaction.atomic():
            study = Study.objects.select_for_update().filter(pk=study_id).first()
            # Checked again under the lock: a worker or a person may have moved it meanwhile.
            if study is None or study.status not in (Study.Status.QUEUED, Study.Status.PROCESSING) \
                    or study.jobs.filter(state__in=ACTIVE_STATES).exists():
                continue
            if services.start_next(study) is not None:
                restarted.append(study_id)
                logger.warning("study %s had stopped between stages; its next stage is queued",
                               study_id)
    return restarted


def _give_up(job_id: int, failures: int) -> bool:
    reason = (f"This stage could not be handed to the workers: the job queue (message broker) "
              f"refused it {failures} times in a row. Retry once the broker is back.")
    with transaction.atomic():
        failed = Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
            state=Job.State.FAILED, finished_at=timezone.now(), error=reason, progress_note="")
        if not failed:
            return False
        job = Job.objects.select_related("study").get(pk=job_id)
        if job.study_id:
            Study.objects.filter(pk=job.study_id).update(status=Study.Status.FAILED)
        record_event("stage_failed", study=job.study,
                     detail={"stage": job.stage, "error": "broker unreachable"})
    logger.error("job %s failed: its message could not be sent %s times", job_id, failures)
    return True


def resend_lost_messages() -> list[int]:
    """Send again the queued jobs that waited too long with no message in the broker."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.JOB_RESEND_AFTER_SECONDS)
    candidates = list(
        Job.objects.filter(Q(queued_at__lt=cutoff) | Q(queued_at__isnull=True),
                           state=Job.State.QUEUED)
        .values_list("pk", "queue", "queued_at", "send_failures")
    )
    if not candidates:
        return []
    try:
        waiting = broker.waiting_job_ids(sorted({queue for _, queue, _, _ in candidates}))
    except Exception as exc:  # an unreachable broker holds nothing we can count on
        logger.warning("could not read the broker's queues (%s)", type(exc).__name__)
        waiting = set()
    resent = []
    for job_id, queue, queued_at, failures in candidates:
        if waiting is not None and job_id in waiting:
            continue
        # The conditional update is the claim on this resend: one reconciler wins it.
        if not Job.objects.filter(pk=job_id, state=Job.State.QUEUED, queued_at=queued_at).update(
                queued_at=now):
            continue
        if failures >= settings.JOB_MAX_SEND_FAILURES:
            _give_up(job_id, failures)
            continue
        if services.send_or_defer(job_id, queue):
            resent.append(job_id)
    if resent:
        logger.warning("sent %s queued jobs again whose messages were lost: %s",
                       len(resent), resent[:20])
    return resent


def reconcile_once() -> dict:
    """One pass; returns what it did (job and study ids), for tests and logs."""
    requeued = recovery.requeue_orphans()
    restarted = restart_stalled_pipelines()
    resent = resend_lost_messages()
    return {"requeued": requeued, "restarted": restarted, "resent": resent}


class Reconciler:
    """A daemon thread running ``reconcile_once`` every ``interval`` seconds."""

    def __init__(self, interval: float):
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="reconciler")
        self._failing = False

    def start(self) -> Reconciler:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=self.interval + 5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                reconcile_once()
            except Exception as exc:  # a database outage: try again next pass, say so once
                if not self._failing:
                    logger.warning("reconciliation paused (%s); retrying every %s s",
                                   type(exc).__name__, self.interval)
                self._failing = True
            else:
                if self._failing:
                    logger.warning("reconciliation resumed")
                self._failing = False
            finally:
                connection.close()  # this thread's own connection; a fresh one next pass


_reconciler: Reconciler | None = None


def start_in_worker() -> Reconciler | None:
    """Start this worker process's reconciler (once); RECONCILE_SECONDS = 0 turns it off."""
    global _reconciler
    if _reconciler is None and settings.RECONCILE_SECONDS > 0:
        _reconciler = Reconciler(settings.RECONCILE_SECONDS).start()
    return _reconciler


def stop_in_worker() -> None:
    global _reconciler
    if _reconciler is not None:
        _reconciler.stop()
        _reconciler = None
