"""Server render time of the review page for a 40-sentence report carrying 20 flags.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/review_render.py [--sentences 40] [--flags 20] [--repeat 30]

It migrates a throw-away SQLite database in a temporary data folder, builds a study with the
test factories (each flag a combined detection over a RadFlag and a correction detection,
RadFlag samples, one image view), logs a radiologist in with Django's test client and times
GET /studies/<pk>/ (the review page) and one htmx decision round trip (POST decide, which
answers with what it changed). Figures: median and 90th percentile of the wall time, the
number of SQL queries per render, and the size of the HTML.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_django import use_private_data_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup_django(data_dir: str) -> None:
    use_private_data_dir(data_dir)
    os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
    os.environ.setdefault("RADREVIEW_LOG_LEVEL", "WARNING")
    os.environ.pop("DATABASE_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "radreview.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def timed(call, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def describe(label: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    median = statistics.median(times) * 1000
    return f"{label}: median {median:.1f} ms, p90 {p90 * 1000:.1f} ms ({len(times)} runs)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=40)
    parser.add_argument("--flags", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="radreview-bench-") as data_dir:
        setup_django(data_dir)
        from django.db import connection
        from django.test import Client

        from radreview.studies.models import Study
        from tests import factories
        from tests.web.review import factories as review_factories

        user = factories.make_user()
        study = review_factories.make_large_review_study(sentences=args.sentences, flags=args.flags)
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        url = f"/studies/{study.pk}/"

        first = client.get(url)  # warms the template cache
        assert first.status_code == 200, first.status_code
        html = first.content.decode()
        executed = []

        def count(execute, sql, params, many, context):
            executed.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            client.get(url)

        render_times = timed(lambda: client.get(url), args.repeat)

        decide_url = f"/studies/{study.pk}/review/decide/"
        flagged = [index for index in range(args.sentences)
                   if f'id="sentence-{index}" data-index="{index}" data-flag' in html]

        def decide_and_undo():
            version = Study.objects.get(pk=study.pk).review_version
            client.post(
                decide_url,
                {"action": "reject", "sentence": flagged[0], "version": version},
                HTTP_HX_REQUEST="true",
            )
            client.post(
                f"/studies/{study.pk}/review/undo/",
                {"version": version + 1},
                HTTP_HX_REQUEST="true",
            )

        round_trips = timed(decide_and_undo, max(5, args.repeat // 3))

        print(
            f"Review page, {args.sentences} sentences, {html.count('data-flag')} flags "
            f"(Django {__import__('django').get_version()}, SQLite, "
            f"Python {sys.version.split()[0]})"
        )
        print(describe("  GET review page (server render)", render_times))
        print(f"  queries per render: {len(executed)}; HTML {len(html) / 1024:.0f} KiB")
        print(describe("  POST decision + POST undo (two region renders)", round_trips))


if __name__ == "__main__":
    main()
