"""gunicorn settings for RadReview's web server (docker/entrypoint.sh, bench/load.py).

    gunicorn radreview.wsgi -c docker/gunicorn.conf.py [--bind ...] [--workers N --threads T]

A request spends much of its time waiting on PostgreSQL round trips (docs/operations.md,
"Load"); a sync worker holds its process idle through each of them. gthread workers serve a
few requests per process, so one request's wait is another's CPU time, with one process per
core for the CPU. Command-line options override these; so do the variables:
  WEB_CONCURRENCY  processes (default: the number of CPUs)
  WEB_THREADS      threads per process (default 4; 1 gives the sync worker)
On SQLite (the embedded default) threads are also safe: writes are serialised by SQLite's
lock with a busy timeout (docs/operations.md).
"""
import multiprocessing
import os

workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
threads = int(os.environ.get("WEB_THREADS", 4))
worker_class = "gthread" if threads > 1 else "sync"
# A long upload (a folder of DICOM files) must not be cut; the API answers well within this.
timeout = 120
# Each process listens on a socket of its own (SO_REUSEPORT), and the kernel spreads new
# connections over them. On one shared socket the processes race to accept, and a burst of
# connections (a department opening its pages) went mostly to one process; a browser's kept-alive
# connection then stays there, behind that process's interpreter lock (docs/operations.md,
# "A listening socket per process").
reuse_port = True
