"""Taking the test database and broker away for a while, and bringing them back as they were:
PostgreSQL stopped and started with pg_ctl, an SQLite file locked by another writer, Redis
shut down without saving and started again, the filesystem broker's queue emptied."""
from __future__ import annotations

import glob
import os
import sqlite3
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import redis
from django.conf import settings
from django.db import connection


def on_postgres() -> bool:
    return connection.vendor == "postgresql"


def on_redis() -> bool:
    return settings.CELERY_BROKER_URL.startswith("redis")


def _pg_ctl(*args: str) -> None:
    pg_ctl = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))[-1]
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    subprocess.run([*as_postgres, pg_ctl, *args], check=True, capture_output=True, timeout=60)


@contextmanager
def database_unavailable(seconds: float):
    """The database away for ``seconds``, ending by itself (the block goes on making
    requests meanwhile; leaving the block waits for the end). PostgreSQL is stopped (fast
    shutdown: every connection cut) and started again with the options it ran with. On SQLite,
    another writer holds the write lock (a backup or a long transaction): the nearest an
    embedded database comes to being away."""
    if on_postgres():
        with connection.cursor() as cursor:
            shown = {}
            for name in ("data_directory", "port", "unix_socket_directories", "listen_addresses"):
                cursor.execute(f"SHOW {name}")
                shown[name] = cursor.fetchone()[0]
        connection.close()
        data = shown["data_directory"]
        _pg_ctl("-D", data, "-m", "fast", "-w", "stop")
        options = (f"-p {shown['port']} -k {shown['unix_socket_directories']} "
                   f"-c listen_addresses={shown['listen_addresses']}")

        def end():
            _pg_ctl("-D", data, "-l", str(Path(data).parent / "pg-restarted.log"), "-w",
                    "-o", options, "start")
    else:
        holder = sqlite3.connect(connection.settings_dict["NAME"], timeout=30,
                                 check_same_thread=False)
        holder.execute("BEGIN EXCLUSIVE")

        def end():
            holder.rollback()
            holder.close()

    timer = threading.Timer(seconds, end)
    timer.start()
    try:
        yield
    finally:
        timer.join()
        connection.close()  # the next query reconnects


def restart_broker() -> None:
    """Redis shut down without saving and started again (what it held is gone, as with a
    Redis run without persistence); the filesystem transport has no process to restart, so
    what a restart loses — the queued messages — is deleted from its folder."""
    if not on_redis():
        for message in (Path(settings.BROKER_DIR) / "queue").iterdir():
            message.unlink(missing_ok=True)
        return
    url = urlparse(settings.CELERY_BROKER_URL)
    client = redis.Redis(host=url.hostname, port=url.port or 6379)
    pidfile = client.config_get("pidfile")["pidfile"]
    logfile = client.config_get("logfile")["logfile"]
    try:
        client.shutdown(nosave=True)
    except redis.ConnectionError:
        pass  # the server closes the connection as it goes
    deadline = time.monotonic() + 30
    while Path(pidfile).exists() if pidfile else False:
        if time.monotonic() > deadline:
            raise RuntimeError("Redis did not stop")
        time.sleep(0.05)
    command = ["redis-server", "--port", str(url.port or 6379), "--bind", url.hostname,
               "--save", "", "--appendonly", "no", "--daemonize", "yes"]
    if pidfile:
        command += ["--pidfile", pidfile]
    if logfile:
        command += ["--logfile", logfile]
    subprocess.run(command, check=True, timeout=30)
    deadline = time.monotonic() + 30
    while True:
        try:
            if client.ping():
                return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
