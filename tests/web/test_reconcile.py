"""The reconciler and deferred sends, in-process: a refused send never fails its caller, a
queued job with no message is sent again (once per pass, whichever worker wins), a job the
broker keeps refusing is failed with its reason, and a pipeline stopped between stages goes on.
(tests/pipeline/test_reconcile_*.py do this with real workers and brokers.)"""
import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from radreview.audit.models import AuditEvent
from radreview.jobs import broker, reconcile, runner, services
from radreview.jobs.models import Job
from radreview.studies.models import Study
from tests import factories
from tests.support.two_factor import verified_login
from workers.pipeline import StudyInputs

REPORT = "FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: No acute disease."


class FakeBroker:
    """Stands in for the broker: records sends, refuses them while ``down``."""

    def __init__(self):
        self.sent: list[int] = []
        self.down = False
        self.holding: set[int] = set()

    def send(self, job_id, queue):
        if self.down:
            raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        self.sent.append(job_id)


@pytest.fixture
def fake_broker(monkeypatch):
    fake = FakeBroker()
    monkeypatch.setattr(services, "send", fake.send)
    monkeypatch.setattr(broker, "waiting_job_ids", lambda queues: set(fake.holding))
    return fake


def report_study(capture, with_report=True) -> tuple[Study, Job]:
    study = factories.make_study()
    if with_report:
        factories.make_report(study, REPORT, with_sentences=False)
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with capture(execute=True):
        services.start_next(study)
    return study, study.jobs.get(stage="parse_report")


def age(job: Job, seconds: float) -> None:
    """Pretend the job was queued ``seconds`` ago."""
    Job.objects.filter(pk=job.pk).update(queued_at=timezone.now() - timedelta(seconds=seconds))


@pytest.mark.django_db
def test_a_refused_send_leaves_the_job_queued_and_raises_nothing(
        fake_broker, django_capture_on_commit_callbacks):
    fake_broker.down = True
    _, job = report_study(django_capture_on_commit_callbacks)
    job.refresh_from_db()
    assert job.state == Job.State.QUEUED and job.send_failures == 1
    assert "Waiting for the job queue" in job.progress_note
    assert fake_broker.sent == []


@pytest.mark.django_db
def test_a_finished_stage_whose_next_send_fails_is_done_and_its_next_stage_waits_queued(
        fake_broker, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks)
    fake_broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE  # its results were stored: it must not read "failed"
    following = study.jobs.get(order=job.order + 1)
    assert following.state == Job.State.QUEUED and following.send_failures == 1


@pytest.mark.django_db
def test_the_reconciler_sends_again_a_queued_job_with_no_message(
        fake_broker, django_capture_on_commit_callbacks, settings):
    _, job = report_study(django_capture_on_commit_callbacks)
    fake_broker.sent.clear()
    assert reconcile.reconcile_once()["resent"] == []  # queued just now: not lost yet
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    assert reconcile.reconcile_once()["resent"] == [job.pk]
    assert fake_broker.sent == [job.pk]
    # The resend re-armed the job's clock: the next pass (another worker's) leaves it alone.
    assert reconcile.reconcile_once()["resent"] == []


@pytest.mark.django_db
def test_a_job_whose_message_the_broker_holds_is_not_sent_again(
        fake_broker, django_capture_on_commit_callbacks, settings):
    _, job = report_study(django_capture_on_commit_callbacks)
    fake_broker.sent.clear()
    fake_broker.holding.add(job.pk)
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    assert reconcile.reconcile_once()["resent"] == []
    assert fake_broker.sent == []


@pytest.mark.django_db
def test_only_one_of_two_reconcilers_wins_a_resend(
        fake_broker, django_capture_on_commit_callbacks, settings):
    _, job = report_study(django_capture_on_commit_callbacks)
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    queued_at = Job.objects.get(pk=job.pk).queued_at
    # Both saw the same row; the first conditional update wins, the second matches nothing.
    first = Job.objects.filter(pk=job.pk, state=Job.State.QUEUED, queued_at=queued_at)
    assert first.update(queued_at=timezone.now()) == 1
    assert first.update(queued_at=timezone.now()) == 0


@pytest.mark.django_db
def test_a_resent_job_runs_once(fake_broker, django_capture_on_commit_callbacks, settings):
    study, job = report_study(django_capture_on_commit_callbacks)
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    reconcile.reconcile_once()
    assert fake_broker.sent.count(job.pk) == 2  # the first message and the resend
    for job_id in list(fake_broker.sent):  # both messages delivered
        runner.run_job(job_id)
    assert AuditEvent.objects.filter(action="stage_done", study=study,
                                     detail__stage="parse_report").count() == 1


@pytest.mark.django_db
def test_a_job_the_broker_keeps_refusing_is_failed_with_its_reason(
        fake_broker, django_capture_on_commit_callbacks, settings, radiologist_client,
        site_admin):
    settings.JOB_MAX_SEND_FAILURES = 3
    fake_broker.down = True
    study, job = report_study(django_capture_on_commit_callbacks)
    for _ in range(2):  # the first send and two resends are refused
        age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
        reconcile.reconcile_once()
    job.refresh_from_db()
    assert job.state == Job.State.QUEUED and job.send_failures == 3
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    reconcile.reconcile_once()
    job.refresh_from_db()
    study.refresh_from_db()
    assert job.state == Job.State.FAILED
    assert "refused it 3 times" in job.error
    assert study.status == Study.Status.FAILED
    page = verified_login(Client(), site_admin).get(f"/studies/{study.pk}/").content.decode()
    assert "refused it 3 times" in page and "Retry" in page
    page = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert "This step could not be finished" in page and "Retry" in page
    assert "refused it 3 times" not in page  # the broker is the admin's


@pytest.mark.django_db
def test_sends_that_succeed_again_reset_the_count(
        fake_broker, django_capture_on_commit_callbacks, settings):
    fake_broker.down = True
    _, job = report_study(django_capture_on_commit_callbacks)
    fake_broker.down = False
    age(job, settings.JOB_RESEND_AFTER_SECONDS + 1)
    assert reconcile.reconcile_once()["resent"] == [job.pk]
    assert runner.claim(job.pk) is not None
    assert Job.objects.get(pk=job.pk).send_failures == 0


@pytest.mark.django_db
def test_a_pipeline_stopped_between_stages_is_restarted(
        fake_broker, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks)
    # As if the process died after the stage was done but before the next was queued.
    Job.objects.filter(pk=job.pk).update(state=Job.State.DONE)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    fake_broker.sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert reconcile.reconcile_once()["restarted"] == [study.pk]
    following = study.jobs.get(order=job.order + 1)
    assert following.state == Job.State.QUEUED and fake_broker.sent == [following.pk]
    with django_capture_on_commit_callbacks(execute=True):
        assert reconcile.reconcile_once()["restarted"] == []


@pytest.mark.django_db
def test_a_study_without_jobs_is_left_alone(fake_broker):
    study = factories.make_study()  # queued, no jobs (as test factories and imports make them)
    assert reconcile.reconcile_once()["restarted"] == []
    assert Study.objects.get(pk=study.pk).status == Study.Status.QUEUED


@pytest.mark.django_db
def test_a_failed_pipeline_is_not_restarted(fake_broker, django_capture_on_commit_callbacks):
    study, job = report_study(django_capture_on_commit_callbacks, with_report=False)
    runner.run_job(job.pk)  # fails: no report
    with django_capture_on_commit_callbacks(execute=True):
        assert reconcile.reconcile_once()["restarted"] == []
    assert Study.objects.get(pk=study.pk).status == Study.Status.FAILED


@pytest.mark.django_db
def test_the_broker_reader_finds_run_stage_messages():
    message = {"headers": {"task": "workers.tasks.run_stage", "argsrepr": "[42]"}}
    other = {"headers": {"task": "workers.tasks.send_sr", "argsrepr": "[7]"}}
    unacked = [message | {"headers": {**message["headers"], "argsrepr": "[43]"}}, "", "cpu"]
    raw = [json.dumps(message), json.dumps(unacked), json.dumps(other), "not json"]
    assert broker._ids(raw) == {42, 43}


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "redis+socket:///run/redis.sock"])
def test_redis_is_read_for_waiting_messages_over_tcp_or_its_socket(settings, monkeypatch, url):
    # A broker that cannot be read leaves the reconciler going by time alone (resending
    # healthy queues): Redis over its unix socket must be read like Redis over TCP.
    settings.CELERY_BROKER_URL = url
    monkeypatch.setattr(broker, "_redis_ids", lambda queues: {7})
    assert broker.waiting_job_ids(["cpu"]) == {7}
