"""What one statement costs on the configured database: a raw ``SELECT 1`` and an ORM read by
primary key, each timed over many calls in this process (issue 19: PostgreSQL's price per
round trip against SQLite's in-process calls).

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/db_roundtrip.py [--calls 2000]               # SQLite
    bench/stack.sh .venv/bin/python bench/db_roundtrip.py [--calls 2000] # PostgreSQL
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bench_django import setup_django

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def timed(label: str, call, calls: int) -> None:
    from django.db import connection

    call()
    started = time.perf_counter()
    for _ in range(calls):
        call()
    micro = 1e6 * (time.perf_counter() - started) / calls
    print(f"{connection.vendor:10s} {label:22s} {micro:7.1f} µs per call ({calls} calls)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    setup_django("radreview-roundtrip-")
    from django.db import connection

    from radreview.jobs.models import Job
    from tests import factories

    job = Job.objects.create(study=factories.make_study(), stage="parse_report", queue="cpu")

    def select_one() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()

    timed("raw SELECT 1", select_one, args.calls)
    timed("ORM read by pk", lambda: Job.objects.get(pk=job.pk), args.calls)


if __name__ == "__main__":
    main()
