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
from django.db import connection

from radreview.celery import app
from radreview.jobs.celery_fixup import WorkerFixup

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
