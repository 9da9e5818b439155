"""Outages answered properly (issue 19): with the database unreachable, the API and the pages
answer 503 with Retry-After (JSON on the API, a short self-reloading page on the web), the
outage is logged once, not per request, and service returns without a restart. A real bug
still gets the 500 page.

The database is made unreachable for real, for this process: SQLite is pointed at a file that
cannot be opened, PostgreSQL at a port nothing listens on; the driver's own error comes back.
(tests/pipeline/test_outages_db.py stops a real PostgreSQL server.)"""
import contextlib
import logging
import time

import pytest
from django.db import connection
from django.test import Client
from kombu.exceptions import OperationalError as BrokerError

from radreview.accounts.idle import LAST_ACTIVITY
from radreview.outages import middleware
from radreview.review import services as review_services
from radreview.review.models import Decision
from radreview.studies import views as study_views
from tests import factories
from tests.support.sockets import free_port
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db(transaction=True)


@contextlib.contextmanager
def database_down():
    saved = dict(connection.settings_dict)
    if connection.vendor == "postgresql":
        # Other threads' kept connections (a live server's) go down too, as in a real outage.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    connection.close()
    if connection.vendor == "sqlite":
        connection.settings_dict["NAME"] = "/nonexistent-folder/radreview.sqlite3"
    else:
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(free_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.fixture(autouse=True)
def fresh_outage_log(monkeypatch):
    monkeypatch.setattr(middleware, "outage_log", middleware.OutageLog())


@pytest.fixture
def browser(radiologist):
    # Not raising: an outage inside middleware goes through Django's exception signal, which
    # the test client would otherwise turn back into an exception.
    client = Client(raise_request_exception=False)
    client.force_login(radiologist)
    return client


def test_the_api_answers_503_json_with_retry_after(api_client, settings):
    study = factories.make_study()
    with database_down():
        response = api_client.get(f"/api/studies/{study.pk}/")
    assert response.status_code == 503
    assert response["Retry-After"] == str(settings.OUTAGE_RETRY_AFTER_SECONDS)
    assert response["Content-Type"] == "application/json"
    assert "cannot reach its database" in response.json()["detail"]
    assert api_client.get(f"/api/studies/{study.pk}/").status_code == 200  # back, no restart


def test_pages_answer_a_short_page_that_reloads_itself(browser, settings):
    with database_down():
        response = browser.get("/")  # fails in middleware already (the session)
    assert response.status_code == 503
    assert response["Retry-After"] == str(settings.OUTAGE_RETRY_AFTER_SECONDS)
    page = response.content.decode()
    assert "Temporarily unavailable" in page
    assert f'http-equiv="refresh" content="{settings.OUTAGE_RETRY_AFTER_SECONDS}"' in page
    assert browser.get("/").status_code == 200


def test_the_health_check_says_when_the_database_is_back(browser):
    assert browser.get("/health/").status_code == 204
    with database_down():
        assert browser.get("/health/").status_code == 503
    assert browser.get("/health/").status_code == 204


def test_an_outage_is_logged_once_and_its_end_once(api_client, caplog):
    study = factories.make_study()
    caplog.set_level(logging.WARNING)
    with database_down():
        for _ in range(5):
            assert api_client.get(f"/api/studies/{study.pk}/").status_code == 503
    api_client.get(f"/api/studies/{study.pk}/")
    api_client.get(f"/api/studies/{study.pk}/")
    messages = [record.getMessage() for record in caplog.records]
    assert sum("database unavailable" in message for message in messages) == 1, messages
    assert sum("available again" in message for message in messages) == 1, messages
    assert not any("Internal Server Error" in message for message in messages), messages


def test_requests_with_an_api_token_in_an_outage_log_one_error_line_in_all(
        api_client, browser, caplog):
    """A token is checked in the view (no session to load first), so the outage reaches the
    middleware as the view's exception; Django then logs every 5xx answer as an error."""
    study = factories.make_study()
    caplog.set_level(logging.INFO)
    with database_down():
        for _ in range(10):
            assert api_client.get(f"/api/studies/{study.pk}/").status_code == 503
            assert api_client.get("/api/studies/").status_code == 503
            assert browser.get(f"/studies/{study.pk}/").status_code == 503
            assert browser.get("/health/").status_code == 503
    errors = [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == ["radreview.outages.middleware: database unavailable (OperationalError); "
                      "answering 503 until it is back"]


def test_a_broker_error_reaching_a_view_is_a_503_too(browser, monkeypatch):
    def broken(*args, **kwargs):
        raise BrokerError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(study_views, "display_age", broken)
    study = factories.make_study()
    response = browser.get(f"/studies/{study.pk}/")
    assert response.status_code == 503 and "job queue" in response.content.decode()


def test_a_real_bug_is_still_a_500(browser, monkeypatch):
    def bug(*args, **kwargs):
        raise ValueError("a bug, not an outage")

    monkeypatch.setattr(study_views, "display_age", bug)
    study = factories.make_study()
    response = browser.get(f"/studies/{study.pk}/")
    assert response.status_code == 500 and "Retry-After" not in response


@pytest.fixture
def lost_after_commit(monkeypatch):
    """The database goes away just after the review service commits: ``with lost:`` around the
    request brings it back at the end."""
    lost = contextlib.ExitStack()
    decide = review_services.decide

    def decide_then_lose_the_database(*args, **kwargs):
        outcome = decide(*args, **kwargs)
        lost.enter_context(database_down())
        return outcome

    monkeypatch.setattr(review_services, "decide", decide_then_lose_the_database)
    return lost


def last_click_a_minute_ago(client) -> None:
    """So that the request moves the idle timer on: the session is saved after the view."""
    session = client.session
    session[LAST_ACTIVITY] = time.time() - 60
    session.save()


def test_a_decision_committed_before_the_database_went_away_is_answered_as_saved(
        browser, lost_after_commit):
    study = rf.make_review_study()
    last_click_a_minute_ago(browser)
    with lost_after_commit:
        response = browser.post(f"/studies/{study.pk}/review/decide/", {
            "action": "accept", "sentence": rf.EFFUSION, "version": 0}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response["HX-Reswap"].startswith("none")  # the page's region stays as it was
    html = response.content.decode()
    assert f"Accepted the flag on sentence {rf.EFFUSION + 1}. It is saved" in html
    assert 'id="review-feedback" hx-swap-oob="true"' in html
    [decision] = Decision.objects.filter(study=study)
    assert decision.action == "accept"
    # Back: the page's next poll (it still holds version 0) brings the decided region.
    poll = browser.get(f"/studies/{study.pk}/review/poll/", {"version": 0},
                       HTTP_HX_REQUEST="true", HTTP_X_RADREVIEW_POLL="1")
    assert poll.status_code == 200
    assert 'id="review-version" name="version" value="1"' in poll.content.decode()


def test_without_htmx_a_decision_committed_before_the_outage_goes_back_to_the_study(
        browser, lost_after_commit):
    study = rf.make_review_study()
    last_click_a_minute_ago(browser)
    with lost_after_commit:
        response = browser.post(f"/studies/{study.pk}/review/decide/", {
            "action": "reject", "sentence": rf.EFFUSION, "version": 0})
    assert response.status_code == 302 and response["Location"] == f"/studies/{study.pk}/"
    assert Decision.objects.filter(study=study).count() == 1


def test_the_api_answers_a_decision_committed_before_the_outage_from_what_it_committed(
        api_client, lost_after_commit):
    study = rf.make_review_study()
    with lost_after_commit:
        response = api_client.post(f"/api/studies/{study.pk}/decisions/", {
            "action": "accept", "sentence": rf.EFFUSION, "version": 0}, format="json")
    assert response.status_code == 201
    assert response.json()["version"] == 1
    assert response.json()["decision"]["sentence"] == rf.EFFUSION
    assert Decision.objects.filter(study=study).count() == 1
