"""Upload → flags on the review page, with a warm worker on the embedded default; and the
server time of a review decision.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/review_latency.py [--uploads 10] [--decisions 20] [--reference F]

It migrates a throw-away SQLite database in a temporary data folder, starts one Celery worker
over the filesystem broker there (as scripts/run.sh does), and uploads report-only studies
through the API (knox token, in this process). Each upload is timed from the POST until the
study is ready with its flags stored (polled every 10 ms); two uploads first warm the worker
(models, spaCy, the text library). Per stage it prints where the time went: waiting in the
broker (queued → claimed) and working (claimed → done, storing included). The decision figure
is the server time of POST /api/studies/<pk>/decisions/ (a reject of a flag) and of its undo,
through Django's test client: no network.

``--reference F``: a JSONL file of {"id", "report"} imported as the reference library first
(without it the library is empty and the correction retrieves no similar reports).
``--reports F``: upload these reports (JSONL, "report"), in turn, instead of a short built-in
one. ``RADREVIEW_BROKER_POLL_SECONDS=1`` measures kombu's default polling, as before it was set.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_django import use_private_data_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REPORT = ("FINDINGS: Large left pleural effusion. No pleural effusion. Heart size is normal. "
          "No pneumothorax.\nIMPRESSION: Right pleural effusion, unchanged from the prior exam.")


def setup_django(data_dir: str) -> None:
    use_private_data_dir(data_dir)
    os.environ.setdefault("RADREVIEW_LOCAL_HTTP", "1")
    os.environ.setdefault("RADREVIEW_LOG_LEVEL", "WARNING")
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "radreview.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def start_worker(data_dir: str) -> tuple[subprocess.Popen, Path]:
    log = Path(data_dir) / "worker.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1", RADREVIEW_LOG_LEVEL="INFO")
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "radreview", "worker", "--pool", "solo",
         "-Q", "cpu,gpu", "-n", "bench@%h", "--loglevel", "INFO", "--without-gossip",
         "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True)
    deadline = time.monotonic() + 120
    while b"ready." not in log.read_bytes():
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{log.read_text()}")
        time.sleep(0.1)
    return process, log


def figures(label: str, seconds: list[float], unit: str = "s") -> str:
    scale = 1000 if unit == "ms" else 1
    return (f"{label}: min {min(seconds) * scale:.3g} {unit}, median "
            f"{statistics.median(seconds) * scale:.3g} {unit}, max {max(seconds) * scale:.3g} "
            f"{unit} ({len(seconds)} runs)")


def upload_and_wait(api, log: Path, report: str):
    from radreview.studies.models import Study

    start = time.perf_counter()
    response = api.post("/api/studies/", {"report_text": report}, format="multipart")
    assert response.status_code == 201, response.content
    study_id = response.json()["studies"][0]["id"]
    deadline = start + 120
    while True:
        study = Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first()
        if study is not None:
            break
        if time.perf_counter() > deadline:
            raise SystemExit(f"study {study_id} did not finish:\n{log.read_text()[-3000:]}")
        time.sleep(0.01)
    elapsed = time.perf_counter() - start
    if study.status != "ready":
        raise SystemExit(f"study {study_id} failed: {list(study.jobs.values('stage', 'error'))}")
    flags = api.get(f"/api/studies/{study_id}/review/").json()["flags"]
    return study, elapsed, flags


def stage_times(studies) -> dict[str, tuple[list[float], list[float]]]:
    """Per stage: seconds waiting in the broker (queued → started) and working (→ finished)."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for study in studies:
        for job in study.jobs.order_by("order"):
            waits, works = out.setdefault(job.stage, ([], []))
            waits.append((job.started_at - job.queued_at).total_seconds())
            works.append((job.finished_at - job.started_at).total_seconds())
    return out


def decision_times(api, studies, repeat: int) -> tuple[list[float], list[float]]:
    from radreview.studies.models import Study

    decide, undo = [], []
    for n in range(repeat):
        study = studies[n % len(studies)]
        sentence = next((s for s in api.get(f"/api/studies/{study.pk}/review/").json()
                         ["sentences"] if s["flag"]), None)
        if sentence is None:
            continue
        version = Study.objects.get(pk=study.pk).review_version
        start = time.perf_counter()
        response = api.post(f"/api/studies/{study.pk}/decisions/",
                            {"action": "reject", "sentence": sentence["index"],
                             "version": version}, format="json")
        decide.append(time.perf_counter() - start)
        assert response.status_code == 201, response.content
        start = time.perf_counter()
        response = api.post(f"/api/studies/{study.pk}/decisions/undo/",
                            {"version": version + 1}, format="json")
        undo.append(time.perf_counter() - start)
        assert response.status_code in (200, 201), response.content
    return decide, undo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--reference", help='JSONL of {"id", "report"}: the reference library')
    parser.add_argument("--reports", help='JSONL of {"report"}: the reports to upload')
    args = parser.parse_args()
    reports = [REPORT]
    if args.reports:
        with open(args.reports, encoding="utf-8") as handle:
            reports = [json.loads(line)["report"] for line in handle if line.strip()]

    with tempfile.TemporaryDirectory(prefix="radreview-bench-") as data_dir:
        setup_django(data_dir)
        from django.conf import settings
        from knox.models import AuthToken
        from rest_framework.test import APIClient

        from radreview.library import text_library
        from radreview.library.models import JSONL_SOURCE
        from tests import factories

        if args.reference:
            text_library.import_reference(JSONL_SOURCE, args.reference)
        user = factories.make_user()
        api = APIClient(HTTP_HOST="localhost")
        api.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(user)[1]}")
        worker, log = start_worker(data_dir)
        try:
            for n in range(2):  # warm: models, spaCy, the text library
                upload_and_wait(api, log, reports[-1 - n])
            runs = [upload_and_wait(api, log, reports[n % len(reports)])
                    for n in range(args.uploads)]
            decide, undo = decision_times(api, [study for study, _, _ in runs], args.decisions)
        finally:
            worker.terminate()
            worker.wait(timeout=30)

        poll = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("polling_interval", "default (1)")
        print(f"Report-only upload → flags, warm worker (SQLite, filesystem broker polling "
              f"{poll} s, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs)")
        print(f"  reference library: {args.reference or 'empty'}; reports: "
              f"{args.reports or 'built-in, 5 sentences'}; flags per study: "
              f"{sorted({flags for _, _, flags in runs})}")
        print(figures("  upload → flags", [elapsed for _, elapsed, _ in runs]))
        for stage, (waits, works) in stage_times([s for s, _, _ in runs]).items():
            print(f"  {stage:<13} waiting {statistics.median(waits) * 1000:6.0f} ms, "
                  f"working {statistics.median(works) * 1000:6.0f} ms (medians)")
        print(figures("Review decision (POST reject, server time)", decide, "ms"))
        print(figures("Undo (POST undo, server time)", undo, "ms"))


if __name__ == "__main__":
    main()
