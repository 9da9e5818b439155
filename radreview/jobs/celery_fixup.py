"""Celery's Django fixup, except that the worker keeps its database connection between tasks.

Celery 5.7's fixup closes every database connection before and after each task (unless
``CELERY_DB_REUSE_MAX`` is set, and then it never checks them), whatever ``CONN_MAX_AGE`` says:
on PostgreSQL every stage began with a login, a new server process and its setup round trips
(bench/drain.py under py-spy: about a tenth of the worker's time). This fixup does around a
task what Django does around a request (``close_old_connections``): a connection is closed
only when it is older than ``CONN_MAX_AGE``, left outside autocommit, or broken (an error
since the last commit that a ping confirms), and the next task's first query checks it first
(``CONN_HEALTH_CHECKS``), so a database restart still costs one failed query, not a worker
restart. On SQLite (``CONN_MAX_AGE`` 0) it closes after every task, as before. A stage task
skips even that check (one round trip less): its first query, the claim, replaces a lost
connection itself (runner.claim).

Only the per-task close changes; Celery's fixup still sets Django up, and a forked pool child
still drops the connections it inherited. The worker's connections also get the site's
``WORKER_SYNCHRONOUS_COMMIT`` (``worker_commit_setting``; on SQLite, its ``synchronous``).
"""
from __future__ import annotations

import os
import re

from celery.fixups.django import DjangoFixup, DjangoWorkerFixup
from django.conf import settings
from django.db import close_old_connections, connections

# Tasks whose first query checks the connection itself (runner.claim replaces a lost one), so
# the ping that Django's health check sends before a task's first query is a round trip saved.
CHECKED_BY_THEIR_FIRST_QUERY = frozenset({"workers.tasks.run_stage"})


def worker_commit_setting() -> None:
    """Give this process's database connections the worker's ``synchronous_commit``.

    Set as a connection option, so it costs no round trip; a connection opened before (none is,
    at worker start) keeps the old value until it is replaced. Every commit a worker makes is
    then answered without waiting for the disk: what it writes is derived (stage results, job
    states, claims) and a crash that loses the last of it only sends those jobs round again
    (the reconciler), while the web process keeps the durable default for what people send.
    On SQLite the same choice is its ``synchronous`` pragma: NORMAL for "off" (in WAL mode a
    commit then reaches the disk at the next checkpoint), FULL for every other value.
    """
    for conn in connections.all():
        options = conn.settings_dict.setdefault("OPTIONS", {})
        if conn.vendor == "postgresql":
            current = options.get("options", "")
            if "synchronous_commit" not in current:  # an operator's own URL option wins
                options["options"] = (
                    f"{current} -c synchronous_commit={settings.WORKER_SYNCHRONOUS_COMMIT}"
                    .strip())
        elif conn.vendor == "sqlite":
            level = "NORMAL" if settings.WORKER_SYNCHRONOUS_COMMIT == "off" else "FULL"
            options["init_command"] = with_sqlite_synchronous(
                options.get("init_command", ""), level)


_SYNCHRONOUS_PRAGMA = re.compile(r"PRAGMA synchronous\s*=\s*\w+;?", re.IGNORECASE)


def with_sqlite_synchronous(init_command: str, level: str) -> str:
    """``init_command`` with its ``synchronous`` pragma set to ``level`` (added if absent)."""
    pragma = f"PRAGMA synchronous={level};"
    if _SYNCHRONOUS_PRAGMA.search(init_command):
        return _SYNCHRONOUS_PRAGMA.sub(pragma, init_command)
    return f"{init_command} {pragma}".strip()


class WorkerFixup(DjangoWorkerFixup):
    def install(self) -> DjangoWorkerFixup:
        worker_commit_setting()
        return super().install()

    def close_database(self, **kwargs) -> None:
        close_old_connections()

    def on_task_prerun(self, sender, **kwargs) -> None:
        super().on_task_prerun(sender, **kwargs)
        if getattr(sender, "name", None) in CHECKED_BY_THEIR_FIRST_QUERY:
            for conn in connections.all(initialized_only=True):
                if conn.connection is not None:
                    conn.health_check_done = True


class Fixup(DjangoFixup):
    def _get_worker_fixup(self) -> DjangoWorkerFixup:
        if self._worker_fixup is None:
            self._worker_fixup = WorkerFixup(self.app)
        return self._worker_fixup

    worker_fixup = property(_get_worker_fixup, DjangoFixup.worker_fixup.fset)


def fixup(app, env: str = "DJANGO_SETTINGS_MODULE") -> Fixup | None:
    """Installed in place of ``celery.fixups.django:fixup`` (radreview/celery.py)."""
    if os.environ.get(env) and "django" not in app.loader_cls.lower():
        return Fixup(app).install()
    return None
