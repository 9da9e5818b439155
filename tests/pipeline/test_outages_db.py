"""The PostgreSQL server stopped for real (pg_ctl stop) under a running web server: the API and
the pages answer 503 with Retry-After, and answer normally again once it is started, without a
restart of the web server; a worker runs the next study without a restart either. (On SQLite,
tests/web/test_outages.py makes the database file unopenable instead.)"""
import os
import shlex
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client
from knox.models import AuthToken

from radreview.studies.models import Study
from tests.support.worker import wait_for

pytestmark = [pytest.mark.pipeline]

REPORT = "FINDINGS: Heart size is normal. No pleural effusion.\nIMPRESSION: No acute disease."


def postgres_server() -> tuple[str, list[str]]:
    """The data directory and the server's command-line options (postmaster.opts)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        data = cursor.fetchone()[0]
    args = shlex.split((Path(data) / "postmaster.opts").read_text())
    binary, options = args[0], args[1:]
    if "-D" in options:  # pg_ctl gives the data directory itself
        at = options.index("-D")
        del options[at:at + 2]
    return data, [str(Path(binary).parent / "pg_ctl"), "-D", data, "-w", "-o",
                  " ".join(shlex.quote(option) for option in options)]


def pg_ctl(command: list[str], action: str) -> None:
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    extra = ["-m", "fast"] if action == "stop" else ["-l", "/dev/null"]
    subprocess.run(as_postgres + command + extra + [action], check=True,
                   stdout=subprocess.DEVNULL, timeout=60)


def get(url: str, headers: dict) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.mark.skipif(os.environ.get("DATABASE_URL", "").startswith("postgres") is False,
                    reason="stops a PostgreSQL server")
def test_database_stopped_answers_503_and_recovers_without_restart(
        live_server, radiologist, settings):
    token = AuthToken.objects.create(radiologist)[1]
    browser = Client()
    browser.force_login(radiologist)
    api = {"Authorization": f"Token {token}"}
    page = {"Cookie": f"sessionid={browser.cookies['sessionid'].value}"}
    assert get(f"{live_server.url}/api/studies/", api)[0] == 200
    assert get(f"{live_server.url}/", page)[0] == 200

    data, command = postgres_server()
    pg_ctl(command, "stop")
    try:
        status, headers, body = get(f"{live_server.url}/api/studies/", api)
        assert status == 503 and headers["Retry-After"] == str(settings.OUTAGE_RETRY_AFTER_SECONDS)
        assert b"cannot reach its database" in body
        assert headers["Content-Type"] == "application/json"
        status, headers, body = get(f"{live_server.url}/", page)
        assert status == 503 and "Retry-After" in headers and b"Temporarily unavailable" in body
    finally:
        pg_ctl(command, "start")
        connection.close()  # this test's own connection died with the server

    wait_for(lambda: get(f"{live_server.url}/api/studies/", api)[0] == 200, timeout=30,
             message="the API to answer again")
    assert get(f"{live_server.url}/", page)[0] == 200


@pytest.mark.skipif(os.environ.get("DATABASE_URL", "").startswith("postgres") is False,
                    reason="stops a PostgreSQL server")
def test_a_worker_whose_kept_connection_died_runs_the_next_study(celery_worker, api_client):
    # The worker keeps its connection between tasks and skips the per-task ping
    # (radreview/jobs/celery_fixup.py): a restart in between must cost the claim one
    # reconnection, not the job a wait for the reconciler (30 s) or a worker restart.
    def upload_and_wait() -> Study:
        response = api_client.post("/api/studies/", {"report_text": REPORT}, format="multipart")
        assert response.status_code == 201, response.content
        study_id = response.json()["studies"][0]["id"]
        return wait_for(
            lambda: Study.objects.filter(pk=study_id, status__in=["ready", "failed"]).first(),
            message="the study to finish", timeout=20, details=celery_worker.log)

    assert upload_and_wait().status == Study.Status.READY  # the worker now holds a connection
    _, command = postgres_server()
    pg_ctl(command, "stop")
    pg_ctl(command, "start")
    connection.close()  # this test's own connection died with the server
    assert upload_and_wait().status == Study.Status.READY, celery_worker.log()
    assert "the database connection was lost; connecting again" in celery_worker.log()
