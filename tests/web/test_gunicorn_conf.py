"""The production web server's settings (docker/gunicorn.conf.py): gthread workers, one process
per CPU by default, sized by WEB_CONCURRENCY and WEB_THREADS (docs/operations.md, "Load")."""
import http.client
import os
import runpy
import subprocess
import sys
import time
from pathlib import Path

from tests.support.process_groups import stop_group
from tests.support.sockets import LISTEN, child_pids, free_port, socket_inodes_of, tcp_inodes

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "docker" / "gunicorn.conf.py"


def load(monkeypatch, **environment):
    for name in ("WEB_CONCURRENCY", "WEB_THREADS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


def test_threads_by_default_one_process_per_cpu(monkeypatch):
    conf = load(monkeypatch)
    assert conf["worker_class"] == "gthread" and conf["threads"] == 4
    assert conf["workers"] == os.cpu_count() and conf["timeout"] == 120


def test_sized_by_the_environment_and_one_thread_is_the_sync_worker(monkeypatch):
    conf = load(monkeypatch, WEB_CONCURRENCY="3", WEB_THREADS="8")
    assert (conf["workers"], conf["threads"], conf["worker_class"]) == (3, 8, "gthread")
    assert load(monkeypatch, WEB_THREADS="1")["worker_class"] == "sync"


def test_the_image_and_the_load_bench_start_gunicorn_with_it():
    assert "-c docker/gunicorn.conf.py" in (ROOT / "docker" / "entrypoint.sh").read_text()
    assert '"-c", "docker/gunicorn.conf.py"' in (ROOT / "bench" / "load.py").read_text()


def test_each_process_listens_on_a_socket_of_its_own(tmp_path):
    """A browser's kept-alive connection stays with the process that accepted it. On one
    listening socket shared by the processes, the processes race to accept, and a burst of new
    connections (twenty reviewers opening their pages) goes mostly to whichever won the first
    ones; with reuse_port each process listens on a socket of its own and the kernel spreads
    new connections over them (docs/operations.md, "A listening socket per process")."""
    port = free_port()
    env = dict(os.environ, WEB_CONCURRENCY="2", WEB_THREADS="4")
    with (tmp_path / "gunicorn.log").open("wb") as log:
        arbiter = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tests.support.pid_app", "-c", str(CONF),
             "--bind", f"127.0.0.1:{port}"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            workers = child_pids(arbiter.pid)
            listening = tcp_inodes(port, state=LISTEN)
            owned = [socket_inodes_of(pid) & listening for pid in workers]
            if len(workers) == 2 and all(owned):
                break
            assert arbiter.poll() is None, (tmp_path / "gunicorn.log").read_text()
            assert time.monotonic() < deadline, f"workers {workers}, listening {listening}"
            time.sleep(0.1)
        assert len(listening) == 2 and owned[0] != owned[1]  # a socket each, not one shared
        served = set()
        for _ in range(40):  # and each serves: a connection reaches either process
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", "/")
            served.add(int(connection.getresponse().read()))
            connection.close()
        assert served == set(workers)
    finally:
        stop_group(arbiter)
