"""The production web server's settings (docker/gunicorn.conf.py): gthread workers, one process
per CPU by default, sized by WEB_CONCURRENCY and WEB_THREADS (docs/operations.md, "Load")."""
import os
import runpy
from pathlib import Path

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
