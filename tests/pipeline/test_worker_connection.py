"""The worker keeps its database connection between tasks, as long as it is sound.

Celery's own Django fixup closes every connection around every task, whatever CONN_MAX_AGE
says, so each PostgreSQL stage began with a login (docs/operations.md, "PostgreSQL
throughput"). radreview/jobs/celery_fixup.py closes one only when Django would close it
after a request: older than CONN_MAX_AGE, or broken.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from django.db import OperationalError, connection

from radreview.celery import app
from radreview.jobs import runner
from radreview.jobs.celery_fixup import (
    WorkerFixup,
    with_sqlite_synchronous,
    worker_commit_setting,
)

# A task as the fixup's signal handlers see it: run by a worker, not eagerly.
TASK = SimpleNamespace(request=SimpleNamespace(is_eager=False))


@pytest.fixture
def worker_fixup():
    (fixup,) = app._fixups
    worker_fixup = fixup.worker_fixup
    assert isinstance(worker_fixup, WorkerFixup)
    return worker_fixup


def around_a_task(worker_fixup) -> None:
    worker_fixup.on_task_prerun(TASK)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    worker_fixup.on_task_postrun(TASK)


@pytest.mark.django_db(transaction=True)
def test_a_persistent_connection_outlives_the_task(worker_fixup):
    connection.ensure_connection()
    connection.close_at = time.monotonic() + 300  # as CONN_MAX_AGE = 300 sets it
    opened = connection.connection
    around_a_task(worker_fixup)
    around_a_task(worker_fixup)
    assert connection.connection is opened


@pytest.mark.django_db(transaction=True)
def test_an_obsolete_connection_is_closed_after_the_task(worker_fixup):
    worker_fixup.on_task_prerun(TASK)
    connection.ensure_connection()
    connection.close_at = time.monotonic() - 1  # CONN_MAX_AGE passed (0: after every task)
    worker_fixup.on_task_postrun(TASK)
    assert connection.connection is None


@pytest.mark.django_db(transaction=True)
def test_a_connection_left_in_a_transaction_is_closed(worker_fixup):
    connection.ensure_connection()
    connection.close_at = None
    worker_fixup.on_task_prerun(TASK)
    connection.set_autocommit(False)  # a task that left its transaction open
    worker_fixup.on_task_postrun(TASK)
    assert connection.connection is None


@pytest.mark.django_db(transaction=True)
def test_a_stage_task_skips_the_ping_other_tasks_keep_it(worker_fixup):
    # A stage's first query, the claim, replaces a lost connection itself (runner.claim).
    connection.ensure_connection()
    connection.close_at = time.monotonic() + 300
    worker_fixup.on_task_postrun(TASK)
    assert not connection.health_check_done
    worker_fixup.on_task_prerun(SimpleNamespace(name="workers.tasks.send_sr", **vars(TASK)))
    assert not connection.health_check_done  # checked before its first query, as Django does
    worker_fixup.on_task_prerun(SimpleNamespace(name="workers.tasks.run_stage", **vars(TASK)))
    assert connection.health_check_done


@pytest.mark.django_db(transaction=True)
def test_a_claim_on_a_lost_connection_connects_again(monkeypatch):
    tokens = iter([OperationalError("server closed the connection unexpectedly"), "token"])

    def claim_once(job_id):
        outcome = next(tokens)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    closed = []
    monkeypatch.setattr(runner, "_claim", claim_once)
    monkeypatch.setattr(connection, "close", lambda: closed.append(True))
    assert runner.claim(1) == "token"
    assert closed == [True]


@pytest.mark.django_db(transaction=True)
def test_a_claim_fails_if_connecting_again_fails_too(monkeypatch):
    def down(job_id):
        raise OperationalError("connection refused")

    monkeypatch.setattr(runner, "_claim", down)
    with pytest.raises(OperationalError):
        runner.claim(1)


def show_synchronous_commit() -> str:
    connection.close()  # the option applies to the next connection
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


@pytest.fixture
def restored_options():
    saved = dict(connection.settings_dict.get("OPTIONS", {}))
    yield connection.settings_dict.setdefault("OPTIONS", {})
    connection.settings_dict["OPTIONS"] = saved
    connection.close()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL server setting")
@pytest.mark.django_db(transaction=True)
def test_a_worker_commits_without_waiting_for_the_disk_the_web_process_waits(
        worker_fixup, restored_options, settings):
    # Derived data only (docs/operations.md, "What a commit waits for"): the reconciler computes
    # again whatever a crash loses; what people send is committed by the web process.
    assert show_synchronous_commit() == "on"
    settings.WORKER_SYNCHRONOUS_COMMIT = "off"
    worker_fixup.install()
    assert show_synchronous_commit() == "off"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL server setting")
@pytest.mark.django_db(transaction=True)
def test_an_operators_own_synchronous_commit_option_wins(restored_options, settings):
    restored_options["options"] = "-c synchronous_commit=local"
    settings.WORKER_SYNCHRONOUS_COMMIT = "off"
    worker_commit_setting()
    assert show_synchronous_commit() == "local"


def sqlite_synchronous() -> int:
    connection.close()  # the init command runs on the next connection
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA synchronous")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's own pragma")
@pytest.mark.django_db(transaction=True)
def test_on_sqlite_the_web_process_waits_for_the_disk_and_a_worker_does_not(
        worker_fixup, restored_options, settings):
    # The embedded default keeps the same promise: what was acknowledged survives a power cut.
    full, normal = 2, 1
    assert sqlite_synchronous() == full
    settings.WORKER_SYNCHRONOUS_COMMIT = "off"
    worker_fixup.install()
    assert sqlite_synchronous() == normal
    settings.WORKER_SYNCHRONOUS_COMMIT = "on"
    worker_commit_setting()
    assert sqlite_synchronous() == full


def test_the_sqlite_pragma_is_replaced_or_added():
    wal = "PRAGMA journal_mode=WAL;"
    assert with_sqlite_synchronous(f"{wal} PRAGMA synchronous=FULL;", "NORMAL") == \
        f"{wal} PRAGMA synchronous=NORMAL;"
    assert with_sqlite_synchronous(wal, "NORMAL") == f"{wal} PRAGMA synchronous=NORMAL;"
    assert with_sqlite_synchronous("", "FULL") == "PRAGMA synchronous=FULL;"
