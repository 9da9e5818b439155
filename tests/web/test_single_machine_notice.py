"""The worklist and the upload page say when the single-machine default is the limit (issue 15):
on SQLite or the filesystem broker, with more than SINGLE_MACHINE_QUEUE_NOTICE jobs queued."""
import pytest
from django.urls import reverse

from radreview.jobs import capacity
from radreview.jobs.models import Job

PAGES = ["studies:worklist", "studies:upload"]
NOTICE = 'id="single-machine-notice"'


@pytest.fixture
def embedded(settings, monkeypatch):
    """The embedded default, whichever stack the suite runs on."""
    monkeypatch.setattr(capacity, "database_vendor", lambda: "sqlite")
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.SINGLE_MACHINE_QUEUE_NOTICE = 3


@pytest.fixture
def scaled_out(settings, monkeypatch):
    monkeypatch.setattr(capacity, "database_vendor", lambda: "postgresql")
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    settings.SINGLE_MACHINE_QUEUE_NOTICE = 3


def queue_jobs(count: int, state=Job.State.QUEUED) -> None:
    Job.objects.bulk_create(Job(stage="import_library", state=state) for _ in range(count))


@pytest.mark.parametrize("page", PAGES)
def test_a_long_queue_on_the_embedded_default_shows_the_notice(radiologist_client, embedded, page):
    queue_jobs(4)
    html = radiologist_client.get(reverse(page)).content.decode()
    assert NOTICE in html
    assert "4 jobs are waiting" in html
    assert "SQLite and the filesystem job queue" in html
    assert "PostgreSQL + Redis" in html


@pytest.mark.parametrize("page", PAGES)
def test_a_queue_at_the_threshold_shows_no_notice(radiologist_client, embedded, page):
    queue_jobs(3)
    queue_jobs(5, state=Job.State.PENDING)  # waiting for an earlier stage: not queued yet
    queue_jobs(5, state=Job.State.DONE)
    assert NOTICE not in radiologist_client.get(reverse(page)).content.decode()


@pytest.mark.parametrize("page", PAGES)
def test_postgresql_and_redis_never_show_the_notice(radiologist_client, scaled_out, page):
    queue_jobs(50)
    assert NOTICE not in radiologist_client.get(reverse(page)).content.decode()


def test_only_the_single_machine_part_is_named(settings, monkeypatch, db):
    monkeypatch.setattr(capacity, "database_vendor", lambda: "postgresql")
    settings.CELERY_BROKER_URL = "filesystem://"
    settings.SINGLE_MACHINE_QUEUE_NOTICE = 0
    queue_jobs(2)
    assert capacity.single_machine_limit() is None  # 0 turns the notice off
    settings.SINGLE_MACHINE_QUEUE_NOTICE = 1
    assert capacity.single_machine_limit() == capacity.SingleMachineLimit(
        queued=2, threshold=1, parts=("the filesystem job queue",))


def test_the_worklist_poll_does_not_count_the_queue(radiologist_client, embedded):
    queue_jobs(4)
    html = radiologist_client.get(reverse("studies:worklist"), HTTP_HX_REQUEST="true")
    assert NOTICE not in html.content.decode()


def test_the_real_detection_follows_the_database(db):
    assert (capacity.database_vendor() == "sqlite") == ("SQLite" in capacity.single_machine_parts())
