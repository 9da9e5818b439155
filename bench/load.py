"""A department's Monday morning, measured: studies posted in bulk, twenty reviewers deciding
flags at once, and both together. Prints figures and a reconciliation; asserts nothing, but
exits non-zero (and prints FAIL) when anything sent was not stored or processed.

    .venv/bin/python bench/load.py [--studies 1000] [--clients 8] [--reviewers 20]
                                   [--decisions 50] [--mode all|studies|review|both]
                                   [--web-workers 2] [--web-threads 4] [--think-seconds 0]

It starts the application itself — gunicorn with docker/gunicorn.conf.py (the production
settings: --web-workers processes of --web-threads gthread threads; --web-threads 1 is the
sync worker scripts/run.sh starts) and one Celery worker (solo pool) — in a throw-away data
folder on loopback. With no variables set
that is the embedded default (SQLite + the filesystem broker); with DATABASE_URL and
CELERY_BROKER_URL set (bench/load_stack.sh starts PostgreSQL + Redis and sets them) the same
run goes to those, on a database the script migrates itself.

Modes (``all`` runs the three in turn, on the same running application):
  studies  --studies report-only studies POSTed to /api/studies/ by --clients threads as fast
           as they can (API token), then the time until every one is processed (ready).
  review   --reviewers reviewers, each signed in through the login page on a study of their
           own with flags, making --decisions accept / reject / edit / undo decisions through
           the page's htmx endpoints (/studies/<pk>/review/decide/ and .../undo/), each sent
           on the version the last answer showed, the next as soon as the last is answered
           (--think-seconds 0, the measured mode); --think-seconds S waits 0.5 S to 1.5 S
           (random) before each decision, as a reader does, and says so beside the figures.
  both     the two at once.
Each prints requests per second, p50/p95/p99 latency, the 5xx count, and: studies posted vs
stored vs complete, decisions acknowledged vs stored. Any difference prints FAIL.
The review modes also print how the reviewers' connections are shared between the gunicorn
processes (each connection stays with the process that accepted it).
"""
from __future__ import annotations

import argparse
import http.client
import os
import random
import re
import select
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import requests
from bench_django import use_private_data_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from radreview.longlived import freeze_long_lived  # noqa: E402 - after the path above
from tests.support.sockets import child_pids, free_port, process_holding  # noqa: E402

NORMAL = "FINDINGS: Heart size is normal. No pneumothorax.\nIMPRESSION: No acute disease"
FLAGGED = ("FINDINGS: Large left pleural effusion. No pleural effusion. Heart size is normal. "
           "No pneumothorax.\nIMPRESSION: Right pleural effusion, unchanged from the prior exam")
PASSWORD = "load-test-password-7"
VERSION = re.compile(r'id="review-version" name="version" value="(\d+)"')
VERSION_BYTES = re.compile(VERSION.pattern.encode())  # an answer's body, without decoding it
FLAG = re.compile(r'"action": "accept", "sentence": (\d+), "detection": (\d+)')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
DECISION_LINE = re.compile(r"POST /studies/\d+/review/(?:decide|undo)/ (\d+)$")


# --- the application under load ----------------------------------------------------------



def stack_name() -> str:
    on_pg = os.environ.get("DATABASE_URL", "").startswith("postgres")
    on_redis = os.environ.get("CELERY_BROKER_URL", "").startswith("redis")
    return (("PostgreSQL" if on_pg else "SQLite") + " + "
            + ("Redis" if on_redis else "filesystem broker"))


def manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, check=True)


class App:
    """gunicorn + Celery worker(s), started like scripts/run.sh, logging to the data folder."""

    def __init__(self, data_dir: Path, web_workers: int, web_threads: int, celery_workers: int):
        self.data_dir, self.port = data_dir, free_port()
        self.web_workers, self.web_threads = web_workers, web_threads
        self.celery_workers = celery_workers
        self.access_log = data_dir / "web-access.txt"
        self.processes: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, name: str, command: list[str], **environment: str) -> Path:
        log = self.data_dir / f"{name}.log"
        self.processes.append(subprocess.Popen(
            command, cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1", **environment), start_new_session=True))
        return log

    def start(self) -> None:
        for number in range(self.celery_workers):
            log = self._spawn(f"worker-{number}", [
                sys.executable, "-m", "celery", "-A", "radreview", "worker", "--pool", "solo",
                "-Q", "cpu,gpu", "-n", f"load{number}@%h", "--loglevel", "INFO",
                "--without-gossip", "--without-mingle"], RADREVIEW_LOG_LEVEL="INFO")
            wait(lambda log=log: b"ready." in log.read_bytes(), 120, "the Celery worker")
        self._spawn("web", [
            sys.executable, "-m", "gunicorn", "radreview.wsgi", "-c", "docker/gunicorn.conf.py",
            "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.web_workers),
            "--threads", str(self.web_threads),
            "--worker-class", "gthread" if self.web_threads > 1 else "sync",
            # Each request's own time in the server (from its parsing to its answer, not its
            # wait to be accepted): what a decision costs, apart from the queue in front.
            "--access-logfile", str(self.access_log), "--access-logformat", "%(m)s %(U)s %(D)s"])
        self.web_pid = self.processes[-1].pid
        wait(self._answers, 60, "gunicorn")

    def connections_per_process(self, client_ports: list[int]) -> list[int]:
        """How many of these kept-alive connections each gunicorn process holds, most first."""
        workers = child_pids(self.web_pid)
        held = Counter(process_holding(workers, self.port, port) for port in client_ports)
        return sorted((held[pid] for pid in workers), reverse=True)

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/accounts/login/", timeout=5).status_code == 200
        except requests.RequestException:
            return False

    def access_size(self) -> int:
        return self.access_log.stat().st_size if self.access_log.exists() else 0

    def decision_server_ms(self, since: int) -> list[float]:
        """Server time (ms) of each page decision and undo logged after byte ``since``."""
        with self.access_log.open("rb") as log:
            log.seek(since)
            lines = log.read().decode(errors="replace").splitlines()
        return [int(found.group(1)) / 1000 for found in map(DECISION_LINE.match, lines) if found]

    def logs_mention(self, text: str) -> int:
        return sum(path.read_text(errors="replace").count(text)
                   for path in self.data_dir.glob("*.log"))

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, 15)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, 9)


def wait(predicate, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise SystemExit(f"FAIL: {what} did not come up in {timeout:.0f} s")


# --- figures -------------------------------------------------------------------------------


@dataclass
class Calls:
    """Latency and status of every request of one kind."""

    name: str
    latencies: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # 0: no answer (connection failed)
    lock: threading.Lock = field(default_factory=threading.Lock)
    started: float = 0.0
    ended: float = 0.0

    def add(self, seconds: float, status: int) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.statuses.append(status)
            self.ended = time.monotonic()

    def report(self) -> str:
        if not self.latencies:
            return f"  {self.name}: no requests"
        ms = sorted(value * 1000 for value in self.latencies)

        def pct(p: float) -> float:
            return ms[min(len(ms) - 1, round(p / 100 * (len(ms) - 1)))]

        elapsed = max(self.ended - self.started, 1e-9)
        fives = sum(1 for s in self.statuses if s >= 500)
        failed = sum(1 for s in self.statuses if s == 0)
        other = sorted({s for s in self.statuses if 0 < s < 500 and s not in (200, 201)})
        return (f"  {self.name}: {len(ms)} requests in {elapsed:.1f} s = "
                f"{len(ms) / elapsed:.1f}/s; "
                f"latency p50 {pct(50):.0f} ms, p95 {pct(95):.0f} ms, p99 {pct(99):.0f} ms, "
                f"max {ms[-1]:.0f} ms, mean {statistics.fmean(ms):.0f} ms; 5xx: {fives}; "
                f"no answer: {failed}" + (f"; other refusals: {other}" if other else ""))


class Verdict:
    def __init__(self):
        self.failures: list[str] = []

    def check(self, label: str, sent: int, stored: int) -> None:
        ok = sent == stored
        print(f"  {label}: {sent} vs {stored} {'ok' if ok else 'FAIL'}")
        if not ok:
            self.failures.append(label)

    def zero(self, label: str, count: int) -> None:
        print(f"  {label}: {count} {'ok' if count == 0 else 'FAIL'}")
        if count:
            self.failures.append(label)


# --- the clients ---------------------------------------------------------------------------


def post_study(app: App, token: str, text: str, calls: Calls) -> int | None:
    started = time.monotonic()
    try:
        response = requests.post(f"{app.url}/api/studies/", data={"report_text": text},
                                 headers={"Authorization": f"Token {token}"}, timeout=120)
        status = response.status_code
    except requests.RequestException:
        status, response = 0, None
    calls.add(time.monotonic() - started, status)
    if status == 201:
        return response.json()["studies"][0]["id"]
    return None


def run_studies(app: App, token: str, count: int, clients: int, tag: str,
                calls: Calls) -> tuple[list[int], float]:
    """Post ``count`` studies with ``clients`` threads; return their ids and when posting began."""
    calls.started = time.monotonic()
    texts = [f"{FLAGGED if n % 2 else NORMAL}. Load {tag} {n}." for n in range(count)]
    with ThreadPoolExecutor(clients) as pool:
        ids = [i for i in pool.map(lambda text: post_study(app, token, text, calls), texts) if i]
    return ids, calls.started


class Reviewer:
    """One radiologist in a browser: signs in through the login page, opens their study, and
    decides through the same htmx endpoints the review page posts to."""

    ACTIONS = ("accept", "reject", "edit", "undo")

    def __init__(self, app: App, username: str, study_id: int, calls: Calls):
        self.app, self.username, self.study_id, self.calls = app, username, study_id, calls
        self.session = requests.Session()
        self.acknowledged = 0
        self.refused: list[str] = []
        self.cpu_seconds = 0.0  # this client thread's own CPU while deciding
        self.latencies: list[float] = []  # this reviewer's own, in seconds

    def sign_in(self) -> None:
        page = self.session.get(f"{self.app.url}/accounts/login/", timeout=60)
        token = CSRF.search(page.text).group(1)
        answer = self.session.post(f"{self.app.url}/accounts/login/", timeout=60, data={
            "username": self.username, "password": PASSWORD, "csrfmiddlewaretoken": token})
        if "sessionid" not in self.session.cookies:
            raise SystemExit(f"FAIL: {self.username} could not sign in ({answer.status_code})")
        # Then the study page and the decisions over one kept-alive connection with the
        # browser's cookies and headers, through http.client: requests' own work per call
        # (about 1 ms of CPU) ran on the same two cores as the server under test, which a
        # reviewer's browser does not. The page opens the connection, as a browser's does, so
        # the reviewers' connections are opened one after another, not all at once.
        cookies = "; ".join(f"{name}={value}" for name, value in self.session.cookies.items())
        self.headers = {"HX-Request": "true", "X-CSRFToken": self.session.cookies["csrftoken"],
                        "Referer": f"{self.app.url}/studies/{self.study_id}/", "Cookie": cookies,
                        "Content-Type": "application/x-www-form-urlencoded"}
        address = urlsplit(self.app.url)
        self.connection = http.client.HTTPConnection(address.hostname, address.port, timeout=120)
        self.connection.request("GET", f"/studies/{self.study_id}/",
                                headers={"Cookie": cookies})
        study = self.connection.getresponse().read().decode()
        self.version = int(VERSION.search(study).group(1))
        self.flags = [(int(s), int(d)) for s, d in dict.fromkeys(FLAG.findall(study))]
        if not self.flags:
            raise SystemExit(f"FAIL: study {self.study_id} has no flag to decide")

    def post(self, path: str, data: dict) -> tuple[int, bytes]:
        """POST a form on the kept-alive connection; (0, b"") when no answer came."""
        sock = self.connection.sock
        if sock is not None and select.select([sock], [], [], 0)[0]:
            self.connection.close()  # the server closed it while idle (keep-alive timeout)
        try:
            self.connection.request("POST", path, body=urlencode(data), headers=self.headers)
            response = self.connection.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.connection.close()  # the next request connects again
            return 0, b""

    def decide(self, step: int) -> None:
        action = self.ACTIONS[step % len(self.ACTIONS)]
        sentence, detection = self.flags[(step // len(self.ACTIONS)) % len(self.flags)]
        base = f"/studies/{self.study_id}/review"
        if action == "undo":
            url, data = f"{base}/undo/", {"version": self.version}
        else:
            url = f"{base}/decide/"
            data = {"action": action, "sentence": sentence, "version": self.version}
            if action == "edit":
                data["text"] = f"Edited by {self.username} at step {step}."
            else:
                data["detection"] = detection
        started = time.monotonic()
        status, body = self.post(url, data)
        elapsed = time.monotonic() - started
        self.calls.add(elapsed, status)
        self.latencies.append(elapsed)
        if status == 200:
            self.acknowledged += 1
        else:
            self.refused.append(f"{action}: {status}")
        found = VERSION_BYTES.search(body)
        if found:
            self.version = int(found.group(1))

    def run(self, decisions: int, think: float) -> None:
        started = time.thread_time()
        for step in range(decisions):
            if think:  # reading the flag: not part of any latency
                time.sleep(random.uniform(0.5, 1.5) * think)
            self.decide(step)
        self.cpu_seconds = time.thread_time() - started


def run_review(reviewers: list[Reviewer], decisions: int, calls: Calls, think: float,
               app: App) -> None:
    calls.started = time.monotonic()
    threads = [threading.Thread(target=r.run, args=(decisions, think)) for r in reviewers]
    for thread in threads:
        thread.start()
    # How the reviewers' connections are shared between the gunicorn processes, read once they
    # all decide (before the first to finish sees its connection closed while idle): each stays
    # with the process that accepted it, which is what its reviewer waits on.
    time.sleep(1)
    ports = [r.connection.sock.getsockname()[1] for r in reviewers if r.connection.sock]
    print(f"  reviewers' connections per gunicorn process, 1 s in: "
          f"{app.connections_per_process(ports)} of {len(reviewers)}")
    for thread in threads:
        thread.join()


# --- setup and reconciliation (the load process reads the same database) --------------------


def setup_django() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "radreview.settings"
    import django  # noqa: PLC0415 - after the environment is set

    django.setup()


def make_accounts(reviewers: int) -> tuple[str, list[str]]:
    from knox.models import AuthToken  # noqa: PLC0415 - needs django.setup() first

    from radreview.accounts.models import User  # noqa: PLC0415 - needs django.setup() first

    def user(name: str) -> User:
        account = User(username=name, role=User.Role.RADIOLOGIST)
        account.set_password(PASSWORD)
        account.save()
        return account

    token = AuthToken.objects.create(user("load-uploader"))[1]
    return token, [user(f"load-reviewer-{n}").username for n in range(reviewers)]


def study_counts(ids: list[int]) -> tuple[int, int, int]:
    """(stored, ready, failed) among ``ids``."""
    from radreview.studies.models import Study  # noqa: PLC0415 - needs django.setup() first

    rows = Study.objects.filter(pk__in=ids)
    return (rows.count(), rows.filter(status=Study.Status.READY).count(),
            rows.filter(status=Study.Status.FAILED).count())


def studies_with_text(tag: str) -> int:
    from radreview.studies.models import Report  # noqa: PLC0415 - needs django.setup() first

    return Report.objects.filter(text__contains=f"Load {tag} ").values("study").distinct().count()


def decisions_of(reviewers: list[Reviewer]) -> int:
    from radreview.review.models import Decision  # noqa: PLC0415 - needs django.setup() first

    return sum(Decision.objects.filter(study_id=r.study_id, user__username=r.username).count()
               for r in reviewers)


def wait_processed(ids: list[int], timeout: float) -> float | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, ready, failed = study_counts(ids)
        if ready + failed == len(ids):
            return time.monotonic()
        time.sleep(0.5)
    return None


# --- the runs ------------------------------------------------------------------------------


def prepare_reviewers(app: App, token: str, names: list[str]) -> list[Reviewer]:
    calls = Calls("setup uploads")
    ids, _ = run_studies(app, token, len(names) * 2, 4, "review", calls)
    flagged = [i for n, i in enumerate(ids) if n % 2]  # the odd texts carry flags
    if wait_processed(flagged, 600) is None:
        raise SystemExit("FAIL: the reviewers' studies were not processed in 10 minutes")
    if len(flagged) != len(names):
        raise SystemExit("FAIL: a reviewer's study could not be uploaded")
    return [Reviewer(app, name, study, Calls(""))
            for name, study in zip(names, flagged, strict=True)]


def phase_studies(app, token, args, verdict: Verdict, tag: str, calls: Calls) -> dict:
    ids, began = run_studies(app, token, args.studies, args.clients, tag, calls)
    posted_at = time.monotonic()
    done_at = wait_processed(ids, args.timeout)
    return {"ids": ids, "began": began, "posted_at": posted_at, "done_at": done_at}


def report_studies(result: dict, args, verdict: Verdict, tag: str, calls: Calls) -> None:
    ids = result["ids"]
    print(calls.report())
    stored, ready, failed = study_counts(ids)
    if result["done_at"] is not None:
        span = result["done_at"] - result["began"]
        print(f"  processing: all {len(ids)} done {span:.1f} s after the first POST "
              f"({len(ids) / span:.2f} studies/s end to end; posting took "
              f"{result['posted_at'] - result['began']:.1f} s)")
    else:
        print(f"  processing: not finished after {args.timeout:.0f} s")
    verdict.check("studies acknowledged (201) vs sent", args.studies, len(ids))
    verdict.check("studies stored vs acknowledged", len(ids), stored)
    verdict.check("studies in the database with this run's text vs acknowledged", len(ids),
                  studies_with_text(tag))
    verdict.check("studies ready vs acknowledged", len(ids), ready)
    verdict.zero("studies failed", failed)
    verdict.zero("study uploads answered 5xx or not at all",
                 sum(1 for s in calls.statuses if s >= 500 or s == 0))


def report_review(reviewers: list[Reviewer], before: int, args, verdict: Verdict,
                  calls: Calls, server_ms: list[float]) -> None:
    print(calls.report())
    if server_ms:
        ms = sorted(server_ms)
        print(f"  server time per decision (gunicorn: parsed to answered, not the wait to be "
              f"accepted): p50 {ms[len(ms) // 2]:.0f} ms, p95 {ms[round(0.95 * (len(ms) - 1))]:.0f}"
              f" ms, mean {statistics.fmean(ms):.0f} ms over {len(ms)}")
    # A reviewer's keep-alive connection stays with the gunicorn process that accepted it, so
    # reviewers who share a busier process wait longer on every decision (docs/operations.md).
    means = sorted(1000 * statistics.fmean(r.latencies) for r in reviewers if r.latencies)
    if means:
        print(f"  each reviewer's mean latency: lowest {means[0]:.0f} ms, median "
              f"{statistics.median(means):.0f} ms, highest {means[-1]:.0f} ms")
    sent = len(reviewers) * args.decisions
    print(f"  load client's own CPU per decision (its {len(reviewers)} threads, on the same "
          f"cores as the server): {sum(r.cpu_seconds for r in reviewers) / sent * 1000:.1f} ms")
    acknowledged = sum(r.acknowledged for r in reviewers)
    refused = [f"{r.username} {x}" for r in reviewers for x in r.refused]
    verdict.check("decisions acknowledged (200) vs sent", len(reviewers) * args.decisions,
                  acknowledged)
    verdict.check("decisions stored vs acknowledged", acknowledged,
                  decisions_of(reviewers) - before)
    if refused:
        print(f"  refused: {refused[:10]}")
    verdict.zero("decisions answered 5xx or not at all",
                 sum(1 for s in calls.statuses if s >= 500 or s == 0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=8, help="threads posting studies")
    parser.add_argument("--reviewers", type=int, default=20)
    parser.add_argument("--decisions", type=int, default=50, help="per reviewer")
    parser.add_argument("--mode", choices=["all", "studies", "review", "both"], default="all")
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn processes")
    parser.add_argument("--web-threads", type=int, default=4,
                        help="threads per gunicorn process (gthread); 1: sync workers")
    parser.add_argument("--think-seconds", type=float, default=0.0,
                        help="mean pause before each decision (0: none, the measured mode)")
    parser.add_argument("--celery-workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1800,
                        help="seconds to wait for the studies to be processed")
    parser.add_argument("--keep", action="store_true", help="keep the data folder and logs")
    args = parser.parse_args()

    data_dir = Path(use_private_data_dir(prefix="radreview-load-"))
    os.environ.update(RADREVIEW_LOCAL_HTTP="1",
                      HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", RADREVIEW_LOG_LEVEL="WARNING")
    web = (f"{args.web_workers} gthread workers x {args.web_threads} threads"
           if args.web_threads > 1 else f"{args.web_workers} sync workers")
    print(f"RadReview under load on {stack_name()}: {os.cpu_count()} CPUs, gunicorn {web}, "
          f"{args.celery_workers} Celery worker(s); data in {data_dir}")
    manage("migrate", "--no-input", "-v0")
    manage("createcachetable")
    setup_django()
    token, names = make_accounts(args.reviewers)
    app = App(data_dir, args.web_workers, args.web_threads, args.celery_workers)
    verdict = Verdict()
    thinking = (f", thinking {args.think_seconds:g} s on average before each (not the "
                f"measured mode)" if args.think_seconds else "")
    try:
        app.start()
        reviewers = []
        if args.mode in ("all", "review", "both"):
            reviewers = prepare_reviewers(app, token, names)
            for reviewer in reviewers:
                reviewer.sign_in()
        # The client's own full collections (Django and requests loaded: ~90 ms each) would stop
        # its threads mid-request and count as the server's latency; a reviewer's browser is
        # another machine (the server's processes freeze theirs too: radreview/longlived.py).
        freeze_long_lived()
        if args.mode in ("all", "studies"):
            print(f"\n(1) {args.studies} studies from {args.clients} clients")
            calls = Calls("POST /api/studies/")
            result = phase_studies(app, token, args, verdict, "one", calls)
            report_studies(result, args, verdict, "one", calls)
        if args.mode in ("all", "review"):
            print(f"\n(2) {len(reviewers)} reviewers x {args.decisions} decisions{thinking}")
            calls = Calls("decide / undo")
            for reviewer in reviewers:
                reviewer.calls = calls
            before, logged = decisions_of(reviewers), app.access_size()
            run_review(reviewers, args.decisions, calls, args.think_seconds, app)
            report_review(reviewers, before, args, verdict, calls,
                          app.decision_server_ms(logged))
        if args.mode in ("all", "both"):
            print(f"\n(3) both at once: {args.studies} studies and {len(reviewers)} reviewers"
                  f"{thinking}")
            study_calls, review_calls = Calls("POST /api/studies/"), Calls("decide / undo")
            for reviewer in reviewers:
                reviewer.calls, reviewer.acknowledged, reviewer.refused = review_calls, 0, []
                reviewer.latencies = []
            before, logged = decisions_of(reviewers), app.access_size()
            holder: dict = {}
            poster = threading.Thread(target=lambda: holder.update(
                phase_studies(app, token, args, verdict, "three", study_calls)))
            poster.start()
            run_review(reviewers, args.decisions, review_calls, args.think_seconds, app)
            poster.join()
            report_studies(holder, args, verdict, "three", study_calls)
            report_review(reviewers, before, args, verdict, review_calls,
                          app.decision_server_ms(logged))
        print()
        verdict.zero("'database is locked' in the server and worker logs",
                     app.logs_mention("database is locked"))
    finally:
        app.stop()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    print("FAIL: " + "; ".join(verdict.failures) if verdict.failures else "PASS: nothing lost")
    return 1 if verdict.failures else 0


if __name__ == "__main__":
    sys.exit(main())
