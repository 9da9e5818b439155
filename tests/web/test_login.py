"""Logging in and the throttle on failed logins."""
import pytest
from django.core.cache import cache
from django.test import override_settings

from radreview.audit.models import AuditEvent
from tests import factories


@pytest.fixture(autouse=True)
def empty_cache(db):
    cache.clear()


def login(client, username, password):
    return client.post("/accounts/login/", {"username": username, "password": password})


@pytest.mark.django_db
def test_valid_login_reaches_the_worklist_and_is_audited(client):
    user = factories.make_user()
    response = login(client, user.username, factories.PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200
    assert AuditEvent.objects.filter(action="login", actor=user).exists()


@pytest.mark.django_db
@override_settings(LOGIN_MAX_FAILURES=3)
def test_repeated_failures_lock_the_account_even_with_the_right_password(client):
    user = factories.make_user()
    for _ in range(3):
        assert login(client, user.username, "wrong-password").status_code == 200
    locked = login(client, user.username, factories.PASSWORD)
    assert locked.status_code == 429
    assert b"Too many failed logins" in locked.content
    assert client.get("/").status_code == 302  # still not logged in


@pytest.mark.django_db
@override_settings(LOGIN_MAX_FAILURES=3)
def test_a_successful_login_clears_earlier_failures(client):
    user = factories.make_user()
    for _ in range(2):
        login(client, user.username, "wrong-password")
    assert login(client, user.username, factories.PASSWORD).status_code == 302
    client.logout()
    for _ in range(2):
        login(client, user.username, "wrong-password")
    assert login(client, user.username, factories.PASSWORD).status_code == 302


@pytest.mark.django_db
def test_logout_needs_post_and_ends_the_session(radiologist_client):
    assert radiologist_client.post("/accounts/logout/").status_code == 302
    assert radiologist_client.get("/").status_code == 302
