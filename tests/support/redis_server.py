"""A private Redis server for tests that stop and restart the broker.

Started on a free loopback port without persistence, as the scale-out stack runs it, so a
restart comes back empty. ``use_as_broker`` points this test process's Celery app at it (the
workers the test starts get the URL through their environment).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from radreview.celery import app as celery_app

from .sockets import free_port


class RedisServer:
    def __init__(self):
        self.binary = shutil.which("redis-server")
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="radreview-redis-"))
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        """Stop without saving: what comes back on start is an empty broker."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def restart(self, down_seconds: float = 0.0) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def use_as_broker(settings, url: str):
    """Point this process's Celery app (and settings) at ``url`` for the duration. Celery
    prefers the CELERY_BROKER_URL environment variable to its configuration, so that too; and
    a transport named in the configuration wins over the URL's scheme (the embedded default
    names its own filesystem transport), so it is cleared."""
    previous = celery_app.conf.broker_url, settings.CELERY_BROKER_URL
    previous_transport = celery_app.conf.broker_transport
    previous_environ = os.environ.get("CELERY_BROKER_URL")

    def reset_pools():
        celery_app._pool = None
        with contextlib.suppress(AttributeError, KeyError):
            celery_app.__dict__["amqp"]._producer_pool = None

    celery_app.conf.broker_url = url
    celery_app.conf.broker_transport = None
    settings.CELERY_BROKER_URL = url
    os.environ["CELERY_BROKER_URL"] = url
    reset_pools()
    try:
        yield
    finally:
        celery_app.conf.broker_url, settings.CELERY_BROKER_URL = previous
        celery_app.conf.broker_transport = previous_transport
        if previous_environ is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = previous_environ
        reset_pools()
