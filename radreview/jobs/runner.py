"""Running one job inside a worker: claim it, compute, store in one transaction, queue the next.

The claim is a conditional update (queued → running) that only one worker can win, so a
message delivered twice runs the stage once. The results are stored only if the claim still
holds when the stage ends, so a job taken over by another worker after a crash is never
finished twice.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, models, transaction
from django.db.models import F, prefetch_related_objects
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.longlived import freeze_after_first
from radreview.studies import storage
from radreview.studies.models import Study
from workers.pipeline import RoleModels

from . import services
from .models import Job
from .stages import STAGES

logger = logging.getLogger(__name__)


def worker_identity() -> str:
    """Who holds a claim: host and process, so a restarted worker can tell a dead claimant."""
    return f"{socket.gethostname()}:{os.getpid()}"


def claim(job_id: int) -> uuid.UUID | None:
    """Take a queued job; None if another run has it or it is not queued.

    The claim is a stage's first query, and the worker skips Django's per-task ping before it
    (celery_fixup.py: a round trip per stage on PostgreSQL): a kept connection that went down
    between tasks (a database restart) fails here, and is replaced once.
    """
    try:
        return _claim(job_id)
    except (InterfaceError, OperationalError):
        if connection.in_atomic_block:  # not a fresh task: nothing to replace
            raise
        logger.warning("job %s: the database connection was lost; connecting again", job_id)
        connection.close()
        return _claim(job_id)


def new_claim() -> services.Claim:
    return services.Claim(token=uuid.uuid4(), by=worker_identity())


def _claim(job_id: int) -> uuid.UUID | None:
    claim = new_claim()
    won = Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
        state=Job.State.RUNNING, attempts=F("attempts") + 1, **claim.fields(timezone.now()))
    return claim.token if won else None


class Heartbeat:
    """Touches the job row while the stage computes, so other workers know it is alive."""

    def __init__(self, job_id: int, token: uuid.UUID):
        self.job_id, self.token = job_id, token
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name=f"heartbeat-{job_id}")
        self._failing = False  # one warning per outage, not one per beat

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _beat(self):
        try:
            while not self._stop.wait(settings.JOB_HEARTBEAT_SECONDS):
                self._touch()
        finally:
            connection.close()

    def _touch(self):
        # One failed beat (SQLite busy with the stage's own write, a database restart) must
        # not end the beats: a job without them is taken over while it still runs.
        try:
            Job.objects.filter(pk=self.job_id, claim_token=self.token).update(
                heartbeat_at=timezone.now())
        except (OperationalError, InterfaceError) as exc:
            if not self._failing:
                logger.warning("job %s: a heartbeat failed (%s); the next ones try again",
                               self.job_id, type(exc).__name__)
            self._failing = True
            connection.close()
            return
        if self._failing:
            logger.info("job %s: heartbeats are written again", self.job_id)
            self._failing = False


class ProgressReporter:
    """The stage's progress callback: writes progress to the job row, at most twice a second."""

    def __init__(self, job_id: int, token: uuid.UUID):
        self.job_id, self.token = job_id, token
        # Counted from the start: a stage that ends within half a second writes no progress.
        self._last = time.monotonic()
        self.final_note = ""

    def __call__(self, fraction: float, note: str = "") -> None:
        if fraction >= 1.0:  # the end: written by ``finish`` with "done", one write fewer
            self.final_note = note[:200]
            return
        now = time.monotonic()
        if now - self._last < 0.5:
            return
        self._last = now
        Job.objects.filter(pk=self.job_id, claim_token=self.token).update(
            progress=max(0.0, min(1.0, fraction)),
            progress_note=note[:200],
            heartbeat_at=timezone.now(),
        )


def run_chain(job_id: int) -> None:
    """Run the job, then each next stage of its study that waits on the same queue, in this
    task: a message per stage is a broker round trip and a worker's turn of its loop (a third to
    a half of a report-only study's time in the worker), and this worker takes that queue
    anyway. A stage for another queue (a GPU) is sent as a message, as before. A worker killed
    inside the chain leaves the running stage to the reconciler (its heartbeat goes stale), and
    the next one, claimed for this worker when the stage before it committed, too."""
    stages: list[str] = []
    kept = run_job(job_id, chain=True, ran=stages)
    while kept is not None:
        kept = run_claimed(kept.job, kept.token, chain=True, ran=stages)
    # A stage's first run loaded its models: out of the collector's walk from now on. Only once
    # the jobs' own objects are gone, so that none of them (a study and its prefetched reports
    # refer to each other) is frozen with the models and kept for the life of the process.
    for stage in stages:
        freeze_after_first(stage)


@dataclass(frozen=True)
class Kept:
    """The study's next job, claimed for this worker (``services.continue_here``), with its
    study as the stage before read it."""
    job: Job
    token: uuid.UUID


def run_job(job_id: int, *, chain: bool = False, ran: list[str] | None = None) -> Kept | None:
    """Claim a queued job and run it (``run_claimed``)."""
    token = claim(job_id)
    if token is None:
        logger.info("job %s is not queued any more; nothing to do", job_id)
        return None
    return run_claimed(Job.objects.select_related("study").get(pk=job_id), token, chain=chain,
                       ran=ran)


def run_claimed(job: Job, token: uuid.UUID, *, chain: bool = False,
                ran: list[str] | None = None) -> Kept | None:
    """Run a job claimed under ``token``. With ``chain``, the study's next job is claimed for
    this worker and returned when it waits on this job's queue, instead of being sent to the
    broker. ``ran`` gets the job's stage once it has run."""
    if job.study_id:
        # The study's reports with it: a stage's load and store each ask for the audited
        # report, one query for both instead of one each (a round trip apiece on PostgreSQL).
        prefetch_related_objects([job.study], "reports")
        if job.study.status == Study.Status.QUEUED:  # its first stage
            Study.objects.filter(pk=job.study_id, status=Study.Status.QUEUED).update(
                status=Study.Status.PROCESSING)
            job.study.status = Study.Status.PROCESSING
    stage = STAGES[job.stage]
    logger.info("job %s (%s) started, attempt %s", job.pk, job, job.attempts)
    try:
        progress = ProgressReporter(job.pk, token)
        # Files fetched from the object store for the stage's code go when the stage ends.
        with Heartbeat(job.pk, token), storage.local_copies():
            result = stage.compute(stage.load(job), RoleModels(stage.roles), progress)
        finished = finish(job, token, lambda: stage.store(job, result), note=progress.final_note,
                          runs_here=job.queue if chain else None)
    except Exception as exc:  # a stage failure is recorded on its job, never lost
        if storage.unavailable(exc):
            wait_for_store(job, token)
        else:
            fail(job, token, exc)
        return None
    finally:
        if ran is not None:
            ran.append(job.stage)
    if finished:
        logger.info("job %s (%s) done", job.pk, job.stage)
    return finished.kept if finished else None


def same_row(instance: models.Model) -> models.Model:
    """A new instance of the same row, without the old one's cached relations: the next stage
    of a chain takes its study from the stage before (one read fewer) but reads its reports
    again, since a stage may add one (a drafted report) or cache its sentences."""
    names = [field.attname for field in instance._meta.concrete_fields]
    return type(instance).from_db(instance._state.db, names,
                                  [getattr(instance, name) for name in names])


@dataclass(frozen=True)
class Finished:
    kept: Kept | None  # the next job, claimed for this worker (``run_chain``)


class TakenOver(Exception):
    """The claim no longer holds: another worker took the job over while this one ran it."""


def finish(job: Job, token: uuid.UUID, store, note: str = "", *,
           runs_here: str | None = None) -> Finished | None:
    """Store the results and mark the job done in one transaction, if our claim still holds.

    ``store`` writes the stage's rows and returns what the job records as its result (or None).
    The done mark then checks the claim and writes that result in one conditional UPDATE (one
    round trip, not two, on PostgreSQL): if another worker took the job over meanwhile, it
    matches nothing and the whole transaction, the stage's rows included, is rolled back; if
    ``store`` fails, it rolls back too and the job is still ours to mark failed.
    """
    try:
        with transaction.atomic():
            done = {"progress_note": note} if note else {}
            result = store()
            if result is not None:
                done["result"] = result
            won = Job.objects.filter(pk=job.pk, state=Job.State.RUNNING,
                                     claim_token=token).update(
                state=Job.State.DONE, progress=1.0, finished_at=timezone.now(),
                claim_token=None, **done)
            if not won:
                raise TakenOver
            record_event("stage_done", study=job.study,
                         detail={"stage": job.stage, "attempt": job.attempts})
            kept = None
            if job.study_id and runs_here is not None:
                claim = new_claim()
                following = services.continue_here(job.study, runs_here, claim, after=job.stage)
                if following is not None:
                    following.study = same_row(job.study)
                    kept = Kept(following, claim.token)
            elif job.study_id:
                services.start_next(job.study, after=job.stage)
    except TakenOver:
        logger.warning("job %s was taken over by another worker; dropping this run", job.pk)
        return None
    return Finished(kept=kept)


STORE_WAIT = "Waiting for the file store (object storage) to answer again"


def wait_for_store(job: Job, token: uuid.UUID) -> None:
    """The media's object store could not be reached: nothing is wrong with the stage, so it
    goes back to the queue, unsent, instead of failing the study; the reconciler sends it again
    after JOB_RESEND_AFTER_SECONDS, and again, until the store answers."""
    logger.warning("job %s (%s): the file store is unreachable; queued again", job.pk, job)
    Job.objects.filter(pk=job.pk, state=Job.State.RUNNING, claim_token=token).update(
        state=Job.State.QUEUED, claim_token=None, queued_at=timezone.now(),
        progress_note=STORE_WAIT)


def fail(job: Job, token: uuid.UUID, exc: Exception) -> None:
    # Patient identifiers can hide in exception text from file parsers: the log gets the
    # exception type only; the full message and traceback go to the job row for admins.
    logger.error("job %s (%s) failed: %s", job.pk, job, type(exc).__name__)
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    with transaction.atomic():
        updated = Job.objects.filter(pk=job.pk, claim_token=token).update(
            state=Job.State.FAILED, finished_at=timezone.now(), claim_token=None,
            error=message[:2000], error_detail=traceback.format_exc(),
        )
        if updated and job.study_id:
            Study.objects.filter(pk=job.study_id).update(status=Study.Status.FAILED)
            record_event(
                "stage_failed",
                study=job.study,
                detail={"stage": job.stage, "error": type(exc).__name__},
            )
