"""How long one worker takes to drain a batch of report-only studies, and where a stage's time
goes (issue 19: PostgreSQL + Redis against the embedded SQLite + filesystem broker).

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/drain.py [--studies 200]               # SQLite + filesystem broker
    bench/stack.sh .venv/bin/python bench/drain.py [--studies 200] # PostgreSQL + Redis

Without DATABASE_URL it migrates a throw-away SQLite database in a temporary data folder; with
it, the database it names (bench/stack.sh makes a fresh one). One Celery worker (solo pool, as
scripts/run.sh starts it) runs; two studies warm it first (models, spaCy). Then ``--studies``
studies are created through the upload service as fast as this process can, and the clock
runs from the first creation until the last job's done mark (the worker's own timestamp). Per
stage: the mean time a worker held the job (its claim to its done mark, storing its results
included) and the share of the drain it took; "between jobs": from one job's done mark to the
next one's claim (the commit, sending the next stage's message, acknowledging, fetching the
next message, Celery's own work). Extra worker environment:
``--env NAME=VALUE`` (repeatable), e.g. ``--env DATABASE_CONN_MAX_AGE=0`` to compare.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

from bench_django import setup_django

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.support.process_groups import stop_group  # noqa: E402 - after the path above

REPORT = ("FINDINGS: Heart size is normal. There is a small left pleural effusion. No "
          "pneumothorax.\nIMPRESSION: Small left pleural effusion.")



def start_worker(extra_env: dict, concurrency: int) -> subprocess.Popen:
    from django.conf import settings

    log = Path(settings.DATA_DIR) / f"drain-worker-{time.time_ns()}.log"
    env = dict(os.environ, RADREVIEW_DATA_DIR=str(settings.DATA_DIR), **extra_env)
    pool = (["--pool", "solo"] if concurrency == 1
            else ["--pool", "prefork", "--concurrency", str(concurrency)])
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "radreview", "worker", *pool,
         "-Q", "cpu,gpu", "--loglevel", "WARNING", "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True)
    worker.log_path = log
    return worker


def create(user, count: int) -> list[int]:
    from radreview.studies.services.upload import UploadRequest, create_studies

    return [
        create_studies(user=user, request=UploadRequest(report_text=f"{REPORT} Case {n}."))[0].pk
        for n in range(count)
    ]


def wait_ready(ids: list[int], worker, timeout: float) -> None:
    from radreview.studies.models import Study

    started = time.monotonic()
    while time.monotonic() - started < timeout:
        left = Study.objects.filter(pk__in=ids).exclude(status__in=["ready", "failed"]).count()
        if not left:
            return
        if worker.poll() is not None:
            sys.exit(f"the worker exited:\n{worker.log_path.read_text()[-3000:]}")
        time.sleep(0.1)
    sys.exit(f"not drained in {timeout} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=200)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the worker")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--concurrency", type=int, default=1,
                        help="worker processes: 1 is the solo pool (scripts/run.sh), more a "
                             "prefork pool (docker/entrypoint.sh's CPU_WORKER_CONCURRENCY)")
    args = parser.parse_args()
    setup_django("radreview-drain-")
    from django.db import connection
    from django.db.models import Max
    from django.utils import timezone

    from radreview.jobs.models import Job
    from radreview.studies.models import Study
    from tests import factories

    extra_env = dict(item.split("=", 1) for item in args.env)
    worker = start_worker(extra_env, args.concurrency)
    try:
        user = factories.make_user(username=f"drain-{time.time_ns()}")
        # warm: models, spaCy, connections (a prefork pool's processes each load their own)
        wait_ready(create(user, 2 * args.concurrency), worker, 180)
        started, started_at = time.monotonic(), timezone.now()
        ids = create(user, args.studies)
        created = time.monotonic() - started
        wait_ready(ids, worker, args.timeout)
    finally:
        stop_group(worker)
    failed = Study.objects.filter(pk__in=ids, status="failed").count()
    jobs = Job.objects.filter(study_id__in=ids)
    # Until the last job's done mark, as the worker stamped it on this machine's clock: the
    # wait's poll (every 0.1 s, 3-4 % of a 200-study drain) would round it up.
    drained = (jobs.aggregate(last=Max("finished_at"))["last"] - started_at).total_seconds()
    broker = os.environ.get("CELERY_BROKER_URL", "filesystem://").split(":")[0]
    print(f"{connection.vendor} + {broker}: {args.studies} studies drained in {drained:.1f} s "
          f"({args.studies / drained:.1f} studies/s; created in {created:.1f} s; "
          f"{failed} failed); {args.concurrency} worker process(es), env {extra_env or '-'}")
    if args.concurrency == 1:
        print_split(jobs, drained)


def print_split(jobs, drained: float) -> None:
    """Where a single worker process's time went (with several, their jobs interleave)."""
    # One worker runs one job at a time: from one job's done mark to the next one's claim is
    # the commit, sending the next stage, the ack, the fetch and Celery.
    spans = sorted(jobs.values_list("started_at", "finished_at", "study_id"))
    gaps = [(nxt[0] - prev[1]).total_seconds() * 1000 for prev, nxt in pairwise(spans)]
    print(f"  between jobs   {statistics.mean(gaps):6.1f} ms mean, "
          f"{statistics.median(gaps):6.1f} ms median; {sum(gaps) / 1000 / drained:5.1%} "
          "of the drain")
    # Within a study the worker runs the next stage itself (runner.run_chain): the gap is the
    # database's (commit, claim, load); between studies it is the broker's too.
    for label, same in (("within a study", True), ("between studies", False)):
        part = [gap for gap, (prev, nxt) in zip(gaps, pairwise(spans), strict=True)
                if (prev[2] == nxt[2]) == same]
        if part:
            print(f"    {label:16s} {statistics.mean(part):6.1f} ms mean, "
                  f"{statistics.median(part):6.1f} ms median over {len(part)}")
    for stage in sorted(set(jobs.values_list("stage", flat=True))):
        held = [(job.finished_at - job.started_at).total_seconds() * 1000
                for job in jobs.filter(stage=stage) if job.finished_at and job.started_at]
        print(f"  {stage:14s} held {statistics.mean(held):6.1f} ms mean, "
              f"{statistics.median(held):6.1f} ms median; {sum(held) / 1000 / drained:5.1%} "
              "of the drain")


if __name__ == "__main__":
    main()
