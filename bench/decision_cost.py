"""Does a review decision cost the same on a study with a long history as on a fresh one?

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/decision_cost.py [--history 300] [--rounds 40]
    bench/stack.sh .venv/bin/python bench/decision_cost.py      # on PostgreSQL

Without DATABASE_URL it migrates a throw-away SQLite database in a temporary data folder; with
it (bench/stack.sh), the database it names. Two review studies are made (the review tests'
study: nine sentences, four flags); one first gets ``--history`` decisions (rejects, edits and
undos, through the review service). Then, on each study in turn, a reject of a flag and its
undo are timed ``--rounds`` times, through Django's test client (no network), on the two
endpoints that make decisions: the review page's (htmx: answers with what the decision
changed) and the API's (answers with the decision). Medians and p95 in milliseconds, and the
ratio history/fresh (issue 19 asks for at most 1.2).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from bench_django import setup_django

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))



def make_history(study, user, count: int) -> None:
    from radreview.review import services
    from tests.web.review import factories as rf

    flagged = list(rf.FLAGGED)
    made = 0
    while made < count:
        version = type(study).objects.get(pk=study.pk).review_version
        step = made % 4
        if step == 0:
            services.decide(study, user, action="reject", sentence_index=flagged[made // 4 % 4],
                            version=version)
        elif step == 1:
            services.decide(study, user, action="edit", sentence_index=rf.CLEAR, version=version,
                            text=f"The lungs are clear (revision {made}).")
        else:  # undo twice: the history holds undos, undone decisions and live ones
            services.undo_last(study, user, version=version)
        made += 1


def time_rounds(client, study, rounds: int, api: bool) -> tuple[list[float], list[float]]:
    from radreview.studies.models import Study
    from tests.web.review import factories as rf

    decide_ms, undo_ms = [], []
    for _ in range(rounds):
        version = Study.objects.get(pk=study.pk).review_version
        form = {"action": "reject", "sentence": rf.NODULE, "version": version}
        started = time.perf_counter()
        if api:
            response = client.post(f"/api/studies/{study.pk}/decisions/", form, format="json")
        else:
            response = client.post(f"/studies/{study.pk}/review/decide/", form,
                                   HTTP_HX_REQUEST="true")
        decide_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code in (200, 201), response.content[:300]
        started = time.perf_counter()
        if api:
            response = client.post(f"/api/studies/{study.pk}/decisions/undo/",
                                   {"version": version + 1}, format="json")
        else:
            response = client.post(f"/studies/{study.pk}/review/undo/", {"version": version + 1},
                                   HTTP_HX_REQUEST="true")
        undo_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code in (200, 201), response.content[:300]
    return decide_ms, undo_ms


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return f"median {statistics.median(values):6.1f} ms  p95 {p95:6.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    setup_django()
    from django.db import connection
    from django.test import Client
    from rest_framework.test import APIClient

    from tests import factories
    from tests.web.review import factories as rf

    user = factories.make_user(username=f"bench-{time.time_ns()}")
    fresh, long = rf.make_review_study(), rf.make_review_study()
    started = time.perf_counter()
    make_history(long, user, args.history)
    print(f"{connection.vendor}: {args.history} earlier decisions made in "
          f"{time.perf_counter() - started:.1f} s; {args.rounds} rounds each")
    page, api = Client(), APIClient()
    page.force_login(user)
    api.force_authenticate(user)
    for name, client, is_api in (("page (htmx)", page, False), ("API", api, True)):
        time_rounds(client, fresh, 3, is_api)  # warm-up: templates, caches
        results = {}
        for label, study in (("fresh", fresh), (f"{args.history} earlier", long)):
            results[label] = time_rounds(client, study, args.rounds, is_api)
        for what, position in (("decide", 0), ("undo", 1)):
            medians = [statistics.median(r[position]) for r in results.values()]
            for label, figures in results.items():
                print(f"  {name:12s} {what:6s} {label:12s} {summary(figures[position])}")
            print(f"  {name:12s} {what:6s} ratio {medians[1] / medians[0]:.2f}")


if __name__ == "__main__":
    main()
