"""The job runner's guarantees, exercised in-process: one claim wins, a stage's results are
stored once, a taken-over run is dropped, failures are recorded, orphans are requeued."""
import logging
import socket

import pytest
from django.db import OperationalError, connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from radreview.audit.models import AuditEvent
from radreview.detectors.models import CombinationSettings
from radreview.jobs import recovery, runner, services
from radreview.jobs.models import Job
from radreview.jobs.stages import plan
from radreview.review.models import Detection
from radreview.studies.models import Report, Sentence, Study
from tests import factories
from tests.support.worker import wait_for
from workers.pipeline import StudyInputs

REPORT = "FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: No acute disease."


@pytest.fixture
def sent(monkeypatch):
    """Messages handed to the broker (the real broker is exercised by the worker tests)."""
    messages = []
    monkeypatch.setattr(services, "send", lambda job_id, queue: messages.append((job_id, queue)))
    return messages


def report_study(django_capture_on_commit_callbacks, with_report: bool = True) -> tuple[Study, Job]:
    """A report-only study whose first stage (parse_report) is queued; returns that job."""
    study = factories.make_study()
    if with_report:
        factories.make_report(study, REPORT, with_sentences=False)
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with django_capture_on_commit_callbacks(execute=True):
        services.start_next(study)
    return study, study.jobs.get(stage="parse_report")


def run_queued(study: Study) -> None:
    """What workers do: run the study's queued jobs, one after the other, until none is left."""
    while job := study.jobs.filter(state=Job.State.QUEUED).order_by("order").first():
        runner.run_job(job.pk)


@pytest.mark.django_db
def test_planning_follows_what_was_uploaded():
    study = factories.make_study()
    inputs = StudyInputs(has_images=True, has_report=True)
    jobs = services.plan_jobs(study, inputs)
    # Other stages (RadFlag, detectors) join as they are built; the plan is what decides.
    assert [job.stage for job in jobs] == [stage.name for stage in plan(inputs)]
    assert jobs[0].stage == "ingest" and "parse_report" in [job.stage for job in jobs]
    assert all(job.state == Job.State.PENDING for job in jobs)


@pytest.mark.django_db
def test_only_one_claim_wins(sent, django_capture_on_commit_callbacks):
    _, job = report_study(django_capture_on_commit_callbacks)
    assert sent == [(job.pk, "cpu")]
    assert runner.claim(job.pk) is not None
    assert runner.claim(job.pk) is None


@pytest.mark.django_db
def test_a_run_stores_sentences_marks_done_and_the_study_ready(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE and job.attempts == 1 and job.progress == 1.0
    assert study.jobs.get(order=job.order + 1).state == Job.State.QUEUED  # the next stage
    run_queued(study)
    study.refresh_from_db()
    assert study.status == Study.Status.READY
    assert all(later.state == Job.State.DONE for later in study.jobs.all())
    report = study.reports.get(kind=Report.Kind.UPLOADED)
    texts = list(report.sentences.values_list("text", flat=True))
    assert texts == ["Heart size is normal.", "No pleural effusion.", "No acute disease."]
    effusion = report.sentences.get(index=1)
    assert effusion.category == "Pleura"
    assert {"observation": "pleural effusion", "status": "absent"}.items() <= effusion.findings[
        0
    ].items()
    for sentence in report.sentences.all():
        assert report.text[sentence.start:sentence.end] == sentence.text
    assert AuditEvent.objects.filter(action="stage_done", study=study).count() == study.jobs.count()


@pytest.mark.django_db
def test_a_stage_reads_the_study_reports_once(sent, django_capture_on_commit_callbacks):
    # Its load and its store both ask for the audited report; on PostgreSQL every read is a
    # round trip (docs/operations.md, "PostgreSQL throughput").
    study, job = report_study(django_capture_on_commit_callbacks)
    with CaptureQueriesContext(connection) as queries:
        runner.run_job(job.pk)
    assert job.stage == "parse_report"
    reads = [q["sql"] for q in queries.captured_queries
             if q["sql"].startswith('SELECT "studies_report"')]
    assert len(reads) == 1
    assert study.reports.get().sentences.count() == 3


@pytest.mark.django_db
def test_a_new_study_is_planned_with_its_first_job_queued_in_one_insert(
    sent, django_capture_on_commit_callbacks
):
    study = factories.make_study()
    inputs = StudyInputs(has_images=True, has_report=True)
    with CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks(execute=True):
        jobs = services.start_study(study, inputs)
    # Nothing read back and no second write (each a round trip on PostgreSQL).
    assert [q["sql"].split()[0] for q in queries.captured_queries] == ["INSERT"]
    assert [job.stage for job in jobs] == [stage.name for stage in plan(inputs)]
    states = list(study.jobs.order_by("order").values_list("state", flat=True))
    assert states == [Job.State.QUEUED] + [Job.State.PENDING] * (len(jobs) - 1)
    assert study.jobs.get(order=0).queued_at is not None
    assert sent == [(jobs[0].pk, jobs[0].queue)]  # after the commit, once


@pytest.mark.django_db
def test_the_next_stage_is_queued_in_one_statement_and_never_twice(
    sent, django_capture_on_commit_callbacks
):
    study = factories.make_study()
    first, second, *_ = services.plan_jobs(study, StudyInputs(has_images=False,
                                                              has_report=True))
    with CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks(execute=True):
        assert services.start_next(study) == first.pk
    assert len(queries.captured_queries) == 1
    # A second caller (a duplicate, a race) does not queue the same job again: the next one.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.start_next(study) == second.pk
    assert sent == [(first.pk, first.queue), (second.pk, second.queue)]
    first.refresh_from_db()
    assert first.state == Job.State.QUEUED and first.queued_at is not None


@pytest.mark.django_db
def test_a_study_with_an_unfinished_job_is_not_made_ready(sent, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks)
    run_queued(study)
    study.refresh_from_db()
    assert study.status == Study.Status.READY
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    Job.objects.filter(pk=job.pk).update(state=Job.State.FAILED)  # no job pending, one not done
    services.start_next(study)
    study.refresh_from_db()
    assert study.status == Study.Status.PROCESSING


@pytest.mark.django_db
def test_a_duplicate_message_after_completion_changes_nothing(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    runner.run_job(job.pk)
    runner.run_job(job.pk)
    assert study.reports.get().sentences.count() == 3
    assert (
        AuditEvent.objects.filter(
            action="stage_done", study=study, detail__stage="parse_report"
        ).count()
        == 1
    )


@pytest.mark.django_db
def test_a_run_whose_claim_was_taken_over_is_not_stored(sent, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks)
    stale_token = runner.claim(job.pk)
    # Another worker decides this one is dead, requeues and claims the job.
    Job.objects.filter(pk=job.pk).update(state=Job.State.QUEUED)
    assert runner.claim(job.pk) not in (None, stale_token)

    def store():  # what the stale run stores goes with its transaction
        study.reports.get().sentences.create(index=0, text="Stale.", start=0, end=6)
        return {"stale": True}

    assert runner.finish(job, stale_token, store) is None
    assert not Sentence.objects.filter(report__study=study).exists()
    job.refresh_from_db()
    assert job.state == Job.State.RUNNING and job.result != {"stale": True}
    assert not AuditEvent.objects.filter(action="stage_done", study=study).exists()


@pytest.mark.django_db
def test_a_failing_stage_records_its_error_and_stops_the_pipeline(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks, with_report=False)
    runner.run_job(job.pk)  # no report row: loading the stage's input fails
    job.refresh_from_db()
    study.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert job.error == "This study has no report: none was uploaded and none was generated."
    assert "Traceback" in job.error_detail
    assert study.status == Study.Status.FAILED
    assert (
        study.jobs.exclude(pk=job.pk).filter(state=Job.State.PENDING).count()
        == study.jobs.count() - 1
    )
    assert AuditEvent.objects.filter(action="stage_failed", study=study).exists()


@pytest.mark.django_db
def test_a_failed_job_can_be_retried(sent, django_capture_on_commit_callbacks, radiologist):
    study, job = report_study(django_capture_on_commit_callbacks, with_report=False)
    runner.run_job(job.pk)
    factories.make_report(study, REPORT, with_sentences=False)  # the missing input arrives
    with django_capture_on_commit_callbacks(execute=True):
        services.retry(Job.objects.get(pk=job.pk), actor=radiologist)
    run_queued(study)
    assert Job.objects.get(pk=job.pk).state == Job.State.DONE
    assert Study.objects.get(pk=study.pk).status == Study.Status.READY


@pytest.mark.django_db
def test_recovery_requeues_jobs_of_dead_local_workers_and_resends_queued_ones(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    runner.claim(job.pk)
    Job.objects.filter(pk=job.pk).update(claimed_by=f"{socket.gethostname()}:999999999")
    other, queued = report_study(django_capture_on_commit_callbacks)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_orphaned_jobs()
    assert Job.objects.get(pk=job.pk).state == Job.State.QUEUED
    assert sorted(sent) == sorted([(job.pk, "cpu"), (queued.pk, "cpu")])
    assert AuditEvent.objects.filter(action="stage_requeued", study=study).exists()


@pytest.mark.django_db
def test_recovery_leaves_live_and_fresh_claims_alone(sent, django_capture_on_commit_callbacks):
    _, job = report_study(django_capture_on_commit_callbacks)
    runner.claim(job.pk)  # claimed by this (live) process, heartbeat now
    Job.objects.filter(pk=job.pk).update(claimed_by="another-host:1", heartbeat_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_orphaned_jobs()
    assert Job.objects.get(pk=job.pk).state == Job.State.RUNNING


@pytest.mark.django_db
def test_recovery_takes_over_jobs_whose_heartbeat_went_stale(
    sent, django_capture_on_commit_callbacks, settings
):
    _, job = report_study(django_capture_on_commit_callbacks)
    runner.claim(job.pk)
    long_ago = timezone.now() - timezone.timedelta(seconds=settings.JOB_STALE_AFTER_SECONDS + 5)
    Job.objects.filter(pk=job.pk).update(claimed_by="another-host:1", heartbeat_at=long_ago)
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_orphaned_jobs()
    assert Job.objects.get(pk=job.pk).state == Job.State.QUEUED


@pytest.mark.django_db
def test_recovery_gives_up_after_too_many_lost_attempts(
    sent, django_capture_on_commit_callbacks, settings
):
    study, job = report_study(django_capture_on_commit_callbacks)
    runner.claim(job.pk)
    Job.objects.filter(pk=job.pk).update(
        claimed_by=f"{socket.gethostname()}:999999999", attempts=settings.JOB_MAX_ATTEMPTS
    )
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_orphaned_jobs()
    assert Job.objects.get(pk=job.pk).state == Job.State.FAILED
    assert Study.objects.get(pk=study.pk).status == Study.Status.FAILED


@pytest.mark.django_db
def test_a_worker_runs_the_next_stages_on_its_queue_itself(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        runner.run_chain(job.pk)
    study.refresh_from_db()
    assert study.status == Study.Status.READY
    assert set(study.jobs.values_list("state", flat=True)) == {Job.State.DONE}
    assert sent == []  # every stage waited on "cpu", the queue this worker took the first from


@pytest.mark.django_db
def test_a_next_stage_on_another_queue_is_sent_to_it(sent, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks)
    second = study.jobs.exclude(pk=job.pk).order_by("order").first()
    Job.objects.filter(pk=second.pk).update(queue="gpu")
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        runner.run_chain(job.pk)
    second.refresh_from_db()
    assert sent == [(second.pk, "gpu")] and second.state == Job.State.QUEUED


@pytest.mark.django_db
def test_a_chained_stage_is_claimed_in_the_statement_that_takes_it_off_pending(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    second = study.jobs.exclude(pk=job.pk).order_by("order").first()
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        kept = runner.run_job(job.pk, chain=True)
    second.refresh_from_db()
    assert kept.token == second.claim_token
    assert second.state == Job.State.RUNNING and second.attempts == 1
    assert second.claimed_by == runner.worker_identity()
    assert second.started_at is not None and second.heartbeat_at is not None
    assert sent == []
    # The claim's RETURNING row is the job as stored, every column converted as a read would.
    fields = [field.attname for field in Job._meta.concrete_fields]
    assert ([getattr(kept.job, name) for name in fields]
            == [getattr(second, name) for name in fields])
    assert kept.job.study.pk == study.pk  # as the stage before read it
    # The kept job runs under that claim: no claim and no read of its job or study of its own,
    # and its results are stored.
    with CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks(execute=True):
        runner.run_claimed(kept.job, kept.token, chain=True)
    statements = [q["sql"] for q in queries.captured_queries]
    assert not [sql for sql in statements
                if sql.startswith('UPDATE "jobs_job" SET "state" = \'running\'')]
    assert not [sql for sql in statements
                if sql.startswith(('SELECT "jobs_job"', 'SELECT "studies_study"'))]
    # but its reports again: a stage may add one (a drafted report)
    assert [sql for sql in statements if sql.startswith('SELECT "studies_report"')]
    second.refresh_from_db()
    assert second.state == Job.State.DONE


@pytest.mark.django_db
def test_a_chained_stage_left_by_a_dead_worker_is_run_again(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        kept = runner.run_job(job.pk, chain=True)  # the worker dies before running it
    Job.objects.filter(pk=kept.job.pk).update(claimed_by=f"{socket.gethostname()}:999999999")
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        recovery.recover_orphaned_jobs()
    orphan = Job.objects.get(pk=kept.job.pk)
    assert orphan.state == Job.State.QUEUED and orphan.claim_token is None
    assert sent == [(orphan.pk, orphan.queue)]
    run_queued(study)
    study.refresh_from_db()
    assert study.status == Study.Status.READY
    assert Job.objects.get(pk=kept.job.pk).attempts == 2  # the lost claim counted as a try


@pytest.mark.django_db
def test_a_report_without_detections_is_combined_without_reading_the_site_weights(
    sent, django_capture_on_commit_callbacks
):
    study, job = report_study(django_capture_on_commit_callbacks)
    while (queued := study.jobs.filter(state=Job.State.QUEUED).first()).stage != "combine":
        with django_capture_on_commit_callbacks(execute=True):
            runner.run_job(queued.pk)
    assert not Detection.objects.filter(report__study=study).exists()
    with CaptureQueriesContext(connection) as queries, \
            django_capture_on_commit_callbacks(execute=True):
        runner.run_job(queued.pk)
    tables = " ".join(q["sql"] for q in queries.captured_queries)
    for unread in ("detectors_detectorweight", "detectors_filterrule",
                   "calibration_combinationactivation", "studies_sentence"):
        assert unread not in tables
    # One read of the report's detections (no earlier combined rows: nothing deleted), and one
    # write of the job: its done mark carries the result, and nothing is queued after the last
    # stage.
    statements = [q["sql"] for q in queries.captured_queries]
    assert len([sql for sql in statements if 'FROM "review_detection"' in sql]) == 1
    assert not [sql for sql in statements if sql.startswith("DELETE")]
    job_writes = [sql for sql in statements if sql.startswith('UPDATE "jobs_job"')]
    assert len(job_writes) == 2 and "'running'" in job_writes[0]  # the claim, then done
    assert '"result"' in job_writes[1] and "'done'" in job_writes[1]
    queued.refresh_from_db()
    assert queued.state == Job.State.DONE
    assert queued.result == {"combined": 0, "flagged": 0}
    study.refresh_from_db()
    assert study.status == Study.Status.READY


@pytest.mark.django_db
def test_a_site_that_switched_the_combination_off_is_still_told_so_without_detections(
    sent, django_capture_on_commit_callbacks
):
    CombinationSettings.objects.update_or_create(pk=1, defaults={"enabled": False})
    study, job = report_study(django_capture_on_commit_callbacks)
    run_queued(study)
    combine = study.jobs.get(stage="combine")
    assert combine.result == {"combined": None, "reason": "switched off"}


@pytest.mark.django_db(transaction=True)
def test_failed_heartbeats_do_not_end_the_beats_and_are_logged_once(
        sent, django_capture_on_commit_callbacks, settings, monkeypatch, caplog):
    _, job = report_study(django_capture_on_commit_callbacks)
    token = runner.claim(job.pk)
    long_ago = timezone.now() - timezone.timedelta(hours=1)
    Job.objects.filter(pk=job.pk).update(heartbeat_at=long_ago)
    settings.JOB_HEARTBEAT_SECONDS = 0.02
    update, failed = QuerySet.update, []

    def busy_three_times(queryset, **fields):
        if "heartbeat_at" in fields and len(failed) < 3:
            failed.append(True)
            raise OperationalError("database is locked")  # as SQLite says under a long write
        return update(queryset, **fields)

    monkeypatch.setattr(QuerySet, "update", busy_three_times)
    caplog.set_level(logging.INFO, logger=runner.logger.name)
    with runner.Heartbeat(job.pk, token):
        wait_for(lambda: Job.objects.get(pk=job.pk).heartbeat_at > long_ago, timeout=10,
                 message="a heartbeat after the failed ones")
    assert len(failed) == 3
    assert caplog.text.count("a heartbeat failed (OperationalError)") == 1
    assert caplog.text.count("heartbeats are written again") == 1
