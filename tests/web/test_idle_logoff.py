"""Automatic logoff after the idle period; the pages' own polls are not activity."""
import time

import pytest

from radreview.accounts.idle import LAST_ACTIVITY
from radreview.audit.models import AuditEvent

pytestmark = pytest.mark.django_db
POLL = {"HTTP_X_RADREVIEW_POLL": "1", "HTTP_HX_REQUEST": "true"}


def idle_for(client, seconds: float) -> None:
    session = client.session
    session[LAST_ACTIVITY] = time.time() - seconds
    session.save()


def test_the_default_idle_period_is_15_minutes_with_a_warning_before(radiologist_client, settings):
    assert settings.SESSION_IDLE_SECONDS == 15 * 60
    html = radiologist_client.get("/").content.decode()
    assert 'data-idle-seconds="900"' in html and 'data-idle-warning-seconds="120"' in html
    assert 'id="idle-warning"' in html


def test_a_session_idle_too_long_is_signed_out_with_a_reason(radiologist_client, radiologist):
    idle_for(radiologist_client, 15 * 60 + 5)
    response = radiologist_client.get("/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    page = radiologist_client.get(response["Location"])
    assert "signed out after 15 minutes without activity" in page.content.decode()
    event = AuditEvent.objects.get(action="logout_idle")
    assert event.actor == radiologist and event.detail["idle_minutes"] == 15


def test_activity_keeps_the_session_and_polls_do_not(radiologist_client):
    idle_for(radiologist_client, 14 * 60)
    assert radiologist_client.get("/", **POLL).status_code == 200  # a poll: still 14 min idle
    idle_session = radiologist_client.session[LAST_ACTIVITY]
    assert time.time() - idle_session > 13 * 60
    assert radiologist_client.post("/accounts/keepalive/").status_code == 204  # "stay signed in"
    assert time.time() - radiologist_client.session[LAST_ACTIVITY] < 5
    idle_for(radiologist_client, 15 * 60 + 5)
    response = radiologist_client.get("/", **POLL)
    assert response.status_code == 204 and response["HX-Redirect"].startswith("/accounts/login/")


def test_the_idle_period_is_configurable(radiologist_client, settings):
    settings.SESSION_IDLE_SECONDS = 5 * 60
    idle_for(radiologist_client, 5 * 60 + 1)
    assert radiologist_client.get("/").status_code == 302
