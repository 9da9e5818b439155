"""No study stranded when the broker loses its messages (issue 19), with real processes.

A private Redis (no persistence, as the scale-out stack runs it) is restarted while studies are
queued: it comes back empty, and the running worker's reconciler sends the lost jobs again, so
every study completes without a worker restart, and no stage is stored twice. Uploads made
while the broker is down are answered 201 and run once it is back; a stage the broker keeps
refusing is failed with the reason. On the filesystem broker, the queue folder is emptied.
The database is whatever the suite runs on (SQLite, or PostgreSQL in the second pass).
"""
import shutil
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from radreview.audit.models import AuditEvent
from radreview.jobs.models import Job
from radreview.studies.models import Study
from tests.support.redis_server import RedisServer, use_as_broker
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline, pytest.mark.slow]

STUDIES = 20
REPORT = ("FINDINGS: Heart size is normal. There is a small left pleural effusion.\n"
          "IMPRESSION: Small left effusion. No pneumothorax.")
# Reconcile every second, and count a queued job's message lost after two.
FAST_RECONCILE = {"RADREVIEW_RECONCILE_SECONDS": "1", "RADREVIEW_JOB_RESEND_AFTER_SECONDS": "2"}

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None,
                                 reason="redis-server is not installed")


@pytest.fixture
def redis_broker(settings, transactional_db):
    server = RedisServer()
    server.start()
    with use_as_broker(settings, server.url):
        yield server
    server.close()


def post_studies(api_client, count: int) -> list[int]:
    ids = []
    for number in range(count):
        response = api_client.post("/api/studies/", {"report_text": f"{REPORT} Case {number}."},
                                   format="multipart")
        assert response.status_code == 201, response.content
        ids.append(response.json()["studies"][0]["id"])
    return ids


def post_with_key(api_client, key: str):
    return api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart",
                           HTTP_IDEMPOTENCY_KEY=key)


def wait_all_finished(ids: list[int], worker: WorkerProcess, timeout: float = 90) -> None:
    def finished():
        return Study.objects.filter(pk__in=ids, status__in=["ready", "failed"]).count() == len(ids)

    def details():
        states = Counter(Job.objects.filter(study_id__in=ids).values_list("state", flat=True))
        return f"job states: {dict(states)}\n{worker.log()[-4000:]}"

    wait_for(finished, timeout=timeout, message="every study to finish", details=details)


def assert_each_stage_done_once(ids: list[int], worker: WorkerProcess) -> None:
    assert set(Study.objects.filter(pk__in=ids).values_list("status", flat=True)) == {"ready"}, \
        worker.log()[-4000:]
    done = Counter(AuditEvent.objects.filter(action="stage_done", study_id__in=ids)
                   .values_list("study_id", "detail__stage"))
    jobs = Job.objects.filter(study_id__in=ids)
    assert set(jobs.values_list("state", flat=True)) == {"done"}
    assert len(done) == jobs.count() and set(done.values()) == {1}, "a stage was stored twice"


@needs_redis
def test_a_redis_restart_with_studies_queued_strands_none(redis_broker, api_client):
    worker = WorkerProcess(name="reconcile-redis", CELERY_BROKER_URL=redis_broker.url,
                           **FAST_RECONCILE)
    worker.start()
    try:
        ids = post_studies(api_client, STUDIES)
        redis_broker.restart(down_seconds=2)  # comes back empty: the queued messages are gone
        wait_all_finished(ids, worker)
        assert_each_stage_done_once(ids, worker)
        assert "sent" in worker.log() and "again" in worker.log(), \
            "nothing was lost, so nothing was tested"
        assert worker.process.poll() is None  # the same worker, never restarted
    finally:
        worker.stop()


@needs_redis
def test_uploads_while_the_broker_is_down_answer_201_retries_do_not_duplicate_and_all_run(
        redis_broker, api_client):
    worker = WorkerProcess(name="reconcile-down", CELERY_BROKER_URL=redis_broker.url,
                           **FAST_RECONCILE)
    worker.start()
    try:
        redis_broker.stop()
        ids = post_studies(api_client, 3)  # the sends fail; the studies exist, queued
        deferred = Job.objects.filter(study_id__in=ids, state="queued", send_failures__gte=1)
        assert deferred.count() == 3
        # A client that retries with its idempotency key, during the outage and after it.
        retried = [post_with_key(api_client, "retry-key-1") for _ in range(2)]
        redis_broker.start()
        retried.append(post_with_key(api_client, "retry-key-1"))
        assert [response.status_code for response in retried] == [201, 200, 200]
        [retried_id] = {response.json()["studies"][0]["id"] for response in retried}
        ids.append(retried_id)
        assert Study.objects.filter(pk__in=ids).count() == 4
        wait_all_finished(ids, worker)
        assert_each_stage_done_once(ids, worker)
    finally:
        worker.stop()


@needs_redis
def test_a_stage_the_broker_keeps_refusing_is_failed_with_its_reason(redis_broker, api_client):
    worker = WorkerProcess(name="reconcile-refused", CELERY_BROKER_URL=redis_broker.url,
                           RADREVIEW_JOB_MAX_SEND_FAILURES="2", **FAST_RECONCILE)
    worker.start()
    try:
        redis_broker.stop()
        [study_id] = post_studies(api_client, 1)
        study = wait_for(lambda: Study.objects.filter(pk=study_id, status="failed").first(),
                         timeout=60, message="the study to be failed", details=worker.log)
        job = study.jobs.get(state="failed")
        assert "refused it 2 times" in job.error
        page = api_client.get(f"/api/studies/{study_id}/").json()
        assert any("refused it 2 times" in entry["error"] for entry in page["jobs"])
    finally:
        worker.stop()


@pytest.mark.skipif(not django_settings.CELERY_BROKER_URL.startswith("filesystem"),
                    reason="empties the filesystem broker's queue folder")
def test_messages_lost_from_the_filesystem_broker_strand_no_study(transactional_db, api_client):
    worker = WorkerProcess(name="reconcile-fs", **FAST_RECONCILE)
    worker.start()
    try:
        ids = post_studies(api_client, STUDIES)
        queue = Path(django_settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
        lost = [path for path in queue.glob("*.msg") if path.unlink(missing_ok=True) is None]
        assert lost, "the worker took every message before the test could lose one"
        wait_all_finished(ids, worker)
        assert_each_stage_done_once(ids, worker)
    finally:
        worker.stop()
