"""Signing in: per-account locks (django-axes), a per-address rate limit that never locks a
ward out, the same rules at every door, and every attempt in the audit trail."""
import datetime as dt
import time

import pytest
from django.core.cache import cache
from django.core.cache.backends import db as db_cache
from django.test import Client

from radreview.accounts.models import User
from radreview.audit.models import AuditEvent
from tests import factories

WARD = "10.20.30.40"  # the NAT address a whole department shares


@pytest.fixture(autouse=True)
def small_limits(db, settings):
    cache.clear()
    settings.LOGIN_MAX_FAILURES = 3
    settings.LOGIN_ADDRESS_MAX_FAILURES = 12


@pytest.fixture
def clock(monkeypatch):
    """The clocks the address windows and the database cache's expiry read, stopped; move them
    on with ``clock.advance(seconds)``."""
    class Clock:
        now = time.time()

        def advance(self, seconds: float) -> None:
            self.now += seconds

    stopped = Clock()
    monkeypatch.setattr(time, "time", lambda: stopped.now)
    monkeypatch.setattr(db_cache, "tz_now",
                        lambda: dt.datetime.fromtimestamp(stopped.now, tz=dt.UTC))
    return stopped


def login(client, username, password, address=WARD, path="/accounts/login/"):
    return client.post(path, {"username": username, "password": password}, REMOTE_ADDR=address)


def api_token(client, username, password, address=WARD):
    return client.post("/api/auth/token/", {"username": username, "password": password},
                       REMOTE_ADDR=address)


def events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("id"))


def test_valid_login_reaches_the_worklist_and_is_audited_with_its_address(client):
    user = factories.make_user()
    response = login(client, user.username, factories.PASSWORD)
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200
    [event] = events("login")
    assert event.actor == user and event.detail == {"via": "web", "address": WARD}


def test_repeated_failures_lock_the_account_even_with_the_right_password(client):
    user = factories.make_user()
    for _ in range(2):
        assert login(client, user.username, "wrong-password").status_code == 200
    locking = login(client, user.username, "wrong-password")
    assert locking.status_code == 429
    locked = login(client, user.username, factories.PASSWORD)
    assert locked.status_code == 429 and locked["Retry-After"] == str(15 * 60)
    assert "locked for 15 minutes" in locked.content.decode()
    assert client.get("/").status_code == 302  # still not logged in
    assert [e.detail["username"] for e in events("account_locked")] == [user.username]
    failed = events("login_failed")
    assert len(failed) == 3 and {e.detail["address"] for e in failed} == {WARD}
    assert events("login_locked")[0].detail == {"via": "web", "address": WARD,
                                                "username": user.username}


def test_a_successful_login_clears_earlier_failures(client):
    user = factories.make_user()
    for _ in range(2):
        login(client, user.username, "wrong-password")
    assert login(client, user.username, factories.PASSWORD).status_code == 302
    client.logout()
    for _ in range(2):
        login(client, user.username, "wrong-password")
    assert login(client, user.username, factories.PASSWORD).status_code == 302


def test_failures_on_one_account_never_lock_another_account_out_from_the_same_address(client):
    mistyped, colleague, admin = (factories.make_user(), factories.make_user(),
                                  factories.make_user(User.Role.ADMIN))
    for _ in range(40):  # far past the account limit and the address limit
        login(client, mistyped.username, "wrong-password")
    assert login(client, colleague.username, factories.PASSWORD).status_code == 302
    client.logout()
    assert login(client, admin.username, factories.PASSWORD).status_code == 302
    client.logout()
    assert api_token(client, colleague.username, factories.PASSWORD).status_code == 200


def test_an_address_failing_across_many_accounts_is_slowed_down_but_not_others(client, clock):
    users = [factories.make_user() for _ in range(6)]
    for user in users:  # 2 failures each: no account locks, the address reaches 12
        for _ in range(2):
            assert login(client, user.username, "wrong-password").status_code == 200
    throttled = login(client, users[0].username, factories.PASSWORD)
    assert throttled.status_code == 429 and "from this address" in throttled.content.decode()
    assert int(throttled["Retry-After"]) == 60
    assert api_token(client, users[0].username, factories.PASSWORD).status_code == 429
    # The same accounts from another address are neither locked nor slowed.
    elsewhere = login(client, users[0].username, factories.PASSWORD, address="10.9.9.9")
    assert elsewhere.status_code == 302


def test_the_address_waits_out_the_window_its_first_failure_opened_not_longer(client, clock):
    users = [factories.make_user() for _ in range(6)]
    admin = factories.make_user(User.Role.ADMIN)
    for user in users:  # the address reaches its limit of 12 through the API, over 6 s
        for _ in range(2):
            assert api_token(client, user.username, "wrong-password").status_code == 400
            clock.advance(0.5)
    clock.advance(19)  # 25 s after the first failure
    refused = login(client, admin.username, factories.PASSWORD)
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 35
    clock.advance(36)  # the window ended 60 s after the first failure, whatever came after it
    assert login(client, admin.username, factories.PASSWORD).status_code == 302
    client.logout()
    assert api_token(client, users[0].username, factories.PASSWORD).status_code == 200


def test_a_locked_account_gets_no_api_token_and_api_failures_are_audited(client):
    user = factories.make_user()
    for _ in range(2):
        response = api_token(client, user.username, "wrong-password")
        assert response.status_code == 400 and "Unable to sign in" in response.json()["detail"]
    assert api_token(client, user.username, "wrong-password").status_code == 429
    locked = api_token(client, user.username, factories.PASSWORD)
    assert locked.status_code == 429 and "locked" in locked.json()["detail"]
    assert {e.detail["via"] for e in events("login_failed")} == {"api"}
    assert events("account_locked")[0].detail["via"] == "api"
    # The lock made through the API holds on the web login too.
    assert login(client, user.username, factories.PASSWORD).status_code == 429


def test_the_admin_login_follows_the_same_rules(client):
    admin = factories.make_user(User.Role.ADMIN)
    for _ in range(3):
        login(client, admin.username, "wrong-password", path="/admin/login/")
    locked = login(client, admin.username, factories.PASSWORD, path="/admin/login/")
    assert locked.status_code == 429
    assert {e.detail["via"] for e in events("login_failed")} == {"admin"}


def test_an_api_sign_in_is_audited(client):
    user = factories.make_user()
    assert api_token(client, user.username, factories.PASSWORD).status_code == 200
    [event] = events("login")
    assert event.actor == user and event.detail == {"via": "api", "address": WARD}


def test_an_admin_unlocks_an_account_and_the_unlock_is_audited(admin_client_, site_admin):
    user, client = factories.make_user(), Client()
    for _ in range(3):
        login(client, user.username, "wrong-password")
    assert login(client, user.username, factories.PASSWORD).status_code == 429
    page = admin_client_.get("/admin/accounts/user/")
    assert "3 recent failures" in page.content.decode()
    response = admin_client_.post("/admin/accounts/user/", {
        "action": "unlock_sign_in", "_selected_action": [user.pk]})
    assert response.status_code == 302
    [event] = events("account_unlocked")
    assert event.actor == site_admin and event.detail["username"] == user.username
    assert login(client, user.username, factories.PASSWORD).status_code == 302


def test_behind_a_trusted_proxy_the_address_it_saw_is_used(client, settings):
    settings.TRUSTED_PROXIES = 1
    user = factories.make_user()
    client.post("/accounts/login/", {"username": user.username, "password": "wrong"},
                REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="6.6.6.6, 192.0.2.7")
    assert events("login_failed")[0].detail["address"] == "192.0.2.7"


def test_hostile_usernames_are_refused_cleanly(client):
    for username in ("\x00admin", "x" * 4000, "ad\u202emin", ""):
        assert login(client, username, "whatever").status_code in (200, 429)
        assert api_token(client, username, "whatever").status_code in (400, 429)


def test_logout_needs_post_and_ends_the_session(radiologist_client):
    assert radiologist_client.get("/accounts/logout/").status_code == 405
    assert radiologist_client.post("/accounts/logout/").status_code == 302
    assert radiologist_client.get("/").status_code == 302
