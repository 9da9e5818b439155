"""Starting and stopping real Celery worker processes in tests."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

from django.conf import settings
from django.db import connection

from workers.detectors import DetectorSpec, register, unregister

from . import media
from .process_groups import stop_group

ROOT = Path(__file__).resolve().parents[2]


def test_database_url() -> str:
    """The URL of the database the tests use, for a worker in another process."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    auth = f"{user}{password}@" if user else ""
    host = db.get("HOST") or "localhost"
    if host.startswith("/"):  # a unix socket's folder (PG_SOCKET=1 in scripts/services.sh)
        host = quote(host, safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgres://{auth}{host}{port}/{db['NAME']}"


def process_environment(**overrides: str) -> dict[str, str]:
    """The environment of a process a test starts: the test's database, media and indexes,
    then ``overrides`` (a "host" of its own gives its own folders)."""
    return {**os.environ, "DATABASE_URL": test_database_url(), "PYTHONUNBUFFERED": "1",
            **media.environment(), "RADREVIEW_INDEX_DIR": str(settings.INDEX_DIR), **overrides}


class ProcessGroup:
    """A child process started in its own process group (``process``) that writes to
    ``log_path`` through ``_log``: its log, and a stop that takes the whole group."""

    process: subprocess.Popen | None
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process:
            stop_group(self.process)
        self._log.close()


class WorkerProcess(ProcessGroup):
    """``celery worker`` as a child process, in its own process group so a kill takes it all.
    ``environment`` adds variables (settings the worker needs, as a deployment would set)."""

    def __init__(self, name: str = "test", log_level: str = "INFO", **environment: str):
        self.name = name
        self.log_level = log_level
        self.environment = environment
        self.process: subprocess.Popen | None = None
        self.log_path = Path(settings.DATA_DIR) / f"worker-{name}-{time.monotonic_ns()}.log"

    def start(self, timeout: float = 60.0) -> None:
        env = process_environment(RADREVIEW_LOG_LEVEL=self.log_level, **self.environment)
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "radreview", "worker", "--pool", "solo",
             "-Q", "cpu,gpu", "-n", f"{self.name}-{time.monotonic_ns()}@%h",
             "--loglevel", self.log_level,
             "--without-gossip", "--without-mingle", "--without-heartbeat"],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"worker exited early:\n{self.log()}")
            if b"ready." in self.log_path.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"worker did not start in {timeout} s:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL the worker and everything it started, as a crash would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


@contextmanager
def worker_with_detector(spec: DetectorSpec, where: str):
    """A started worker that declares a test's own detector the way a site declares its
    plugins (``where``: "module:NAME"), with the spec registered in this process too, where the
    pages read the registry."""
    register(spec)
    worker = WorkerProcess(RADREVIEW_DETECTOR_PLUGINS=where)
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()
        unregister(spec.name)


def wait_for(predicate, timeout: float = 120.0, interval: float = 0.2, message: str = "condition",
             details=None):
    """Poll ``predicate`` until it returns something true; on timeout, fail with ``details()``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    extra = f"\n{details()}" if details else ""
    raise AssertionError(f"timed out after {timeout} s waiting for {message}{extra}")
