"""Where a review decision's server time goes: queries, SQL time, rendering, the rest.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/decision_profile.py [--rounds 30] [--profile]
    bench/stack.sh .venv/bin/python bench/decision_profile.py      # on PostgreSQL

On the review tests' study (nine sentences, four flags), a signed-in reviewer (a session in
the database, through every middleware, with Django's test client: no network) sends
``--rounds`` rounds of reject, edit and two undos to the page's htmx endpoints, as
bench/load.py does. Per request kind:
median and p95 wall time, the median CPU time of this thread (on a shared machine the steadier
figure: it leaves out waiting for a core; on SQLite it includes the database's own work),
queries, time in SQL, the answer's size. ``--profile`` adds
the functions with the most cumulative time (cProfile) over all the rounds.
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import statistics
import sys
import time
from pathlib import Path

from bench_django import setup_django

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
VERSION = re.compile(rb'id="review-version" name="version" value="(\d+)"')



class Timed:
    """Wall time, queries and SQL time of each request of one kind."""

    def __init__(self):
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.queries: list[int] = []
        self.sql: list[float] = []
        self.size: list[int] = []

    def line(self, name: str) -> str:
        def p95(values):
            ordered = sorted(values)
            return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

        return (f"  {name:7s} wall median {statistics.median(self.wall):6.1f} ms, "
                f"p95 {p95(self.wall):6.1f} ms; CPU median {statistics.median(self.cpu):6.1f} ms; "
                f"{statistics.median(self.queries):.0f} queries, "
                f"SQL {statistics.median(self.sql):5.1f} ms; answer "
                f"{statistics.median(self.size) / 1024:.1f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--sql", action="store_true", help="print the last round's statements")
    parser.add_argument("--sort", default="cumulative", help="cProfile's order (e.g. tottime)")
    parser.add_argument("--lines", type=int, default=45, help="cProfile's functions printed")
    args = parser.parse_args()
    setup_django()
    from django.db import connection  # noqa: PLC0415 - needs django.setup() first
    from django.test import Client  # noqa: PLC0415 - needs django.setup() first

    from tests import factories  # noqa: PLC0415 - needs django.setup() first
    from tests.web.review import factories as rf  # noqa: PLC0415 - needs django.setup() first

    user = factories.make_user(username=f"bench-{time.time_ns()}")
    study = rf.make_review_study()
    client = Client(enforce_csrf_checks=False)
    client.force_login(user)  # a real session row, read and written as a browser's would be
    page = client.get(f"/studies/{study.pk}/")
    version = int(VERSION.search(page.content).group(1))
    base = f"/studies/{study.pk}/review"
    kinds = {"reject": Timed(), "edit": Timed(), "undo": Timed()}
    elapsed = {"sql": 0.0, "queries": 0}
    statements: list[str] = []

    def timer(execute, sql, params, many, context):
        elapsed["queries"] += 1
        statements.append(sql)
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            elapsed["sql"] += time.perf_counter() - started

    # On the thread's CPU time, not the wall clock: waiting for the database or a core is not cost.
    profiler = cProfile.Profile(time.thread_time) if args.profile else None

    def send(kind: str, url: str, data: dict, measured: bool) -> None:
        nonlocal version
        elapsed.update(sql=0.0, queries=0)
        statements.clear()
        started, cpu_started = time.perf_counter(), time.thread_time()
        if profiler and measured:
            profiler.enable()
        with connection.execute_wrapper(timer):
            response = client.post(url, {**data, "version": version}, HTTP_HX_REQUEST="true")
        if profiler and measured:
            profiler.disable()
        wall, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
        assert response.status_code == 200, response.content[:300]
        version = int(VERSION.search(response.content).group(1))
        if measured:
            timed = kinds[kind]
            timed.wall.append(wall * 1000)
            timed.cpu.append(cpu * 1000)
            timed.queries.append(elapsed["queries"])
            timed.sql.append(elapsed["sql"] * 1000)
            timed.size.append(len(response.content))

    for round_number in range(args.rounds + 3):
        measured = round_number >= 3  # the first rounds warm templates and caches
        send("reject", f"{base}/decide/",
             {"action": "reject", "sentence": rf.NODULE, "detection": ""}, measured)
        send("edit", f"{base}/decide/", {"action": "edit", "sentence": rf.CLEAR,
                                         "text": f"Lungs clear, round {round_number}."}, measured)
        send("undo", f"{base}/undo/", {}, measured)
        send("undo", f"{base}/undo/", {}, measured)
    print(f"{connection.vendor}: {args.rounds} rounds of reject, edit, undo, undo "
          f"through the page's htmx endpoints")
    for name, timed in kinds.items():
        print(timed.line(name))
    if args.sql:
        print("the last undo's statements:")
        for sql in statements:
            print("   ", sql[:160])
    if profiler:
        pstats.Stats(profiler).sort_stats(args.sort).print_stats(args.lines)


if __name__ == "__main__":
    main()
