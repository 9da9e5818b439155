"""A real web server (gunicorn, as scripts/run.sh starts it) on the test database, for tests that
kill or starve it; and the process that holds a given client connection."""
from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from django.conf import settings

from .sockets import child_pids, free_port
from .worker import ROOT, ProcessGroup, process_environment


class WebServer(ProcessGroup):
    """``gunicorn radreview.wsgi`` with ``workers`` sync workers on a free loopback port, in its
    own process group, sharing the test database, media and broker with the test; with
    ``production_settings``, gthread workers with the image's settings (docker/gunicorn.conf.py:
    threads, a listening socket per process)."""

    def __init__(self, workers: int = 2, production_settings: bool = False, **environment: str):
        self.workers = workers
        self.settings_file = ["-c", "docker/gunicorn.conf.py"] if production_settings else []
        self.environment = environment
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.log_path = Path(settings.DATA_DIR) / f"web-{time.monotonic_ns()}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        env = process_environment(**self.environment)
        self._log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "radreview.wsgi", *self.settings_file,
             "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(self.workers), "--timeout", "120", "--graceful-timeout", "5"],
            cwd=ROOT, env=env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn exited early:\n{self.log()}")
            try:
                urllib.request.urlopen(f"{self.url}/accounts/login/", timeout=5).close()
                return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise RuntimeError(f"gunicorn did not answer in {timeout} s:\n{self.log()}")

    def worker_pids(self) -> list[int]:
        return child_pids(self.process.pid)
