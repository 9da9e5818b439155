"""Creating a study's jobs and handing them to the workers."""
from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from django.db import DatabaseError, connection, transaction
from django.db.models import Case, Exists, F, OuterRef, Value, When
from django.dispatch import Signal
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.celery import app as celery_app
from radreview.studies.models import Report, Study
from workers import pipeline

from .models import Job
from .stages import STUDY_ORDER, plan

logger = logging.getLogger(__name__)

RUN_STAGE_TASK = "workers.tasks.run_stage"

# Sent in the transaction that marks a study's last job done (``study_id``): apps that act on a
# finished pipeline connect to it in their AppConfig.ready (the review carries decisions over
# to a new report version).
pipeline_finished = Signal()


def plan_jobs(study: Study, inputs: pipeline.StudyInputs, *, queue_first: bool = False
              ) -> list[Job]:
    """Create one pending job per stage the study needs, in pipeline order; with
    ``queue_first`` the first is created queued (no message sent: ``start_study`` sends it)."""
    queued = {"state": Job.State.QUEUED, "queued_at": timezone.now()} if queue_first else {}
    return Job.objects.bulk_create(
        Job(study=study, stage=stage.name, order=order, queue=stage.queue,
            **(queued if order == 0 else {}))
        for order, stage in enumerate(plan(inputs))
    )


def enqueue(job: Job) -> None:
    """Mark a job queued and send its message once the surrounding transaction commits.

    Sending after commit means a worker never sees a job id whose row it cannot read yet. A
    send that fails (broker down), or a process that dies between commit and send, leaves the
    job queued with no message: the reconciler in every worker sends it again
    (radreview/jobs/reconcile.py).
    """
    Job.objects.filter(pk=job.pk).update(state=Job.State.QUEUED, queued_at=timezone.now())
    transaction.on_commit(lambda: send_or_defer(job.pk, job.queue))


def send(job_id: int, queue: str) -> None:
    celery_app.send_task(RUN_STAGE_TASK, args=[job_id], queue=queue)
    logger.info("job %s sent to queue %s", job_id, queue)


def send_or_defer(job_id: int, queue: str) -> bool:
    """Send a queued job's message; if the broker refuses, leave it to the reconciler.

    Never raises: the job row is already committed as queued, so the caller (an upload, a
    finished stage) has done its part; failing it now would answer 500 for a study that exists,
    or record a stage as failed after it was stored.
    """
    try:
        send(job_id, queue)
    except Exception as exc:  # the broker's errors differ by transport (kombu, redis, OSError)
        note_send_failure(job_id, exc)
        return False
    return True


def note_send_failure(job_id: int, exc: Exception) -> None:
    """Count a refused send on the job, so the reconciler knows when to give up."""
    logger.warning("job %s could not be sent (%s); the reconciler will send it again",
                   job_id, type(exc).__name__)
    try:
        Job.objects.filter(pk=job_id, state=Job.State.QUEUED).update(
            send_failures=F("send_failures") + 1,
            progress_note=f"Waiting for the job queue ({type(exc).__name__}); sending again soon.",
        )
    except DatabaseError:  # the database is down too: the reconciler still finds the job queued
        logger.warning("job %s: its failed send could not be recorded", job_id)


def start_study(study: Study, inputs: pipeline.StudyInputs) -> list[Job]:
    """Plan a new study's jobs with the first one already queued: one INSERT, nothing read back
    (planning them pending and then ``start_next`` is two round trips more per upload on
    PostgreSQL)."""
    jobs = plan_jobs(study, inputs, queue_first=True)
    if not jobs:
        start_next(study)  # nothing to run: ready at once
        return jobs
    first = jobs[0]
    transaction.on_commit(lambda: send_or_defer(first.pk, first.queue))
    return jobs


def start_next(study: Study, *, after: str | None = None) -> int | None:
    """Queue the study's first pending job (its id; its message is sent once the transaction
    commits), or mark the study ready when none is left. ``after``: the stage just done."""
    queued = None if _is_last(after) else _queue_first_pending(study.pk)
    if queued is None:
        _mark_ready_if_done(study.pk)
        return None
    transaction.on_commit(lambda: send_or_defer(queued.pk, queued.queue))
    return queued.pk


@dataclass(frozen=True)
class Claim:
    """A worker's claim on a job: the token its results are stored under, and who holds it."""
    token: uuid.UUID
    by: str

    def fields(self, now) -> dict:
        """What a claim writes on the job row, besides its state and one attempt more: one list
        for the runner's claim of a queued job and a chained stage's (``continue_here``)."""
        return {"claim_token": self.token, "claimed_by": self.by, "started_at": now,
                "heartbeat_at": now, "error": "", "error_detail": "", "progress_note": "",
                "send_failures": 0}


def continue_here(study: Study, queue: str, claim: Claim, *, after: str | None = None
                  ) -> Job | None:
    """Hand the study's first pending job to the calling worker if it waits on ``queue``, the
    queue the worker takes (``runner.run_chain``): it is claimed for the caller in the same
    statement that takes it off pending, which also returns its row, and the caller runs it
    once this transaction commits, with no message, no claim and no read of the job of its own
    (three round trips fewer per stage on PostgreSQL). A job for another queue (a GPU's) is
    queued and sent, as by ``start_next``. Returns the job claimed for the caller, or None.

    A worker killed between the commit and the stage leaves the job running under its claim,
    like one killed mid-stage: its heartbeat goes stale and the reconciler requeues it."""
    queued = None if _is_last(after) else _queue_first_pending(study.pk, here=(queue, claim))
    if queued is None:
        _mark_ready_if_done(study.pk)
        return None
    if queued.state == Job.State.RUNNING:
        return queued
    transaction.on_commit(lambda: send_or_defer(queued.pk, queued.queue))
    return None


def _is_last(stage: str | None) -> bool:
    """Whether nothing can wait after ``stage``: the last of every study's stages. Jobs run in
    order and a retried job runs before those after it, so when the last one is done no job
    is pending (a study's readiness is still checked against every job)."""
    return stage == STUDY_ORDER[-1]


def _mark_ready_if_done(study_id: int) -> None:
    # Ready only if every job is done: asked in the UPDATE itself (one round trip, not two).
    # A study of images with no report to review (none could be drafted) waits for one.
    unfinished = Job.objects.filter(study=OuterRef("pk")).exclude(state=Job.State.DONE)
    reviewable = Report.objects.filter(study=OuterRef("pk"), kind__in=(
        Report.Kind.UPLOADED, Report.Kind.CANDIDATE))
    finished = Study.objects.filter(pk=study_id).exclude(Exists(unfinished)).update(
        status=Case(When(Exists(reviewable), then=Value(Study.Status.READY)),
                    default=Value(Study.Status.AWAITING_REPORT)))
    if finished:
        pipeline_finished.send(sender=Study, study_id=study_id)


# Stages that read the report under audit: run again for each new version of it.
def _reads_the_report(stage: str) -> bool:
    return STUDY_ORDER.index(stage) >= STUDY_ORDER.index("parse_report")


def rerun_for_report(study: Study, inputs: pipeline.StudyInputs) -> None:
    """A report (or a new version of it) has arrived for ``study``: plan the stages it now needs
    that it has no job for, put those that read the report back to pending (a run in flight
    loses its claim and stores nothing), and queue the first. Call inside the transaction that
    stores the report."""
    existing = {job.stage: job for job in study.jobs.all()}
    wanted = plan(inputs)
    Job.objects.bulk_create(
        Job(study=study, stage=stage.name, order=order, queue=stage.queue)
        for order, stage in enumerate(wanted) if stage.name not in existing)
    again = [existing[stage.name].pk for stage in wanted
             if stage.name in existing and _reads_the_report(stage.name)]
    Job.objects.filter(pk__in=again).update(
        state=Job.State.PENDING, claim_token=None, progress=0.0, progress_note="", error="",
        error_detail="", attempts=0, send_failures=0)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    start_next(study)


def _queue_first_pending(study_id: int, here: tuple[str, Claim] | None = None) -> Job | None:
    """Take the study's first pending job off pending: queued, or with ``here`` (a queue and a
    claim) running under that claim when it waits on that queue. The job as it now is; None if
    none is pending.

    One statement (UPDATE ... RETURNING, which the ORM's update() cannot say) where a read and
    a write were two round trips per stage on PostgreSQL. The outer state check makes a second,
    concurrent caller match nothing instead of taking the same job twice.
    """
    table = connection.ops.quote_name(Job._meta.db_table)
    order = connection.ops.quote_name("order")
    now = timezone.now()
    if here is None:
        assignments, params = "state = %s", [Job.State.QUEUED.value]
    else:
        queue, claim = here
        # A job for this worker's queue takes the claim's values; a job for another queue keeps
        # its own and is only queued.
        parts = ["state = CASE WHEN queue = %s THEN %s ELSE %s END",
                 "attempts = attempts + CASE WHEN queue = %s THEN 1 ELSE 0 END"]
        params = [queue, Job.State.RUNNING.value, Job.State.QUEUED.value, queue]
        for column, value in claim.fields(now).items():
            parts.append(f"{column} = CASE WHEN queue = %s THEN %s ELSE {column} END")
            params += [queue, Job._meta.get_field(column).get_db_prep_value(value, connection)]
        assignments = ", ".join(parts)
    fields = Job._meta.concrete_fields
    returned = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {assignments}, queued_at = %s WHERE state = %s AND id = ("
            f"SELECT id FROM {table} WHERE study_id = %s AND state = %s ORDER BY {order}, id "
            f"LIMIT 1) RETURNING {returned}",
            [*params, connection.ops.adapt_datetimefield_value(now), Job.State.PENDING.value,
             study_id, Job.State.PENDING.value])
        row = cursor.fetchone()
    return _job_from_row(fields, row) if row else None


def _job_from_row(fields, row) -> Job:
    """A Job from a raw row of ``fields``' columns, each value converted as a query would (the
    backend's and the field's converters: SQLite gives dates and JSON as text)."""
    values = []
    for field, value in zip(fields, row, strict=True):
        column = field.get_col(Job._meta.db_table)
        for convert in (connection.ops.get_db_converters(column)
                        + column.get_db_converters(connection)):
            value = convert(value, column, connection)
        values.append(value)
    return Job.from_db(connection.alias, [field.attname for field in fields], values)


def start_site_job(stage: str, params: dict, *, actor, queue: str = "cpu") -> Job:
    """Create and queue a job that works for the whole site (an import, a calibration run)."""

    job = Job.objects.create(stage=stage, params=params, queue=queue, created_by=actor)
    record_event("site_job_started", actor=actor, detail={"stage": stage, "job": job.pk})
    enqueue(job)
    return job


def retry(job: Job, *, actor) -> None:
    """Put a failed job back in the queue (a person asked for it)."""

    with transaction.atomic():
        updated = Job.objects.filter(pk=job.pk, state=Job.State.FAILED).update(
            state=Job.State.PENDING,
            error="",
            error_detail="",
            progress=0.0,
            progress_note="",
            attempts=0,
        )
        if not updated:
            return
        record_event("stage_retried", actor=actor, study=job.study, detail={"stage": job.stage})
        if job.study_id:
            Study.objects.filter(pk=job.study_id).update(status=Study.Status.PROCESSING)
            start_next(job.study)
        else:
            enqueue(job)
