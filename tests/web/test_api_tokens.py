"""API tokens: hashed at rest, expiring, revoked on logout, password change and deactivation,
listed and revocable by admins."""
import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from radreview.audit.models import AuditEvent
from tests import factories
from tests.support.two_factor import code, enrol, verified_login


@pytest.fixture
def user(db):
    return factories.make_user()


def issue(user) -> str:
    body = {"username": user.username, "password": factories.PASSWORD}
    if user.is_site_admin:  # and the authenticator's code, which admins must have
        body["otp_token"] = code(enrol(user))
    response = Client().post("/api/auth/token/", body)
    assert response.status_code == 200, response.content
    return response.json()["token"]


def works(token: str) -> bool:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    status = api.get("/api/studies/").status_code
    assert status in (200, 401)
    return status == 200


def test_a_token_is_stored_only_as_a_hash_and_expires_after_12_hours(user):
    token = issue(user)
    [row] = AuthToken.objects.filter(user=user)
    assert token not in (row.digest, row.token_key) and len(row.digest) == 128
    lifetime = row.expiry - row.created
    assert dt.timedelta(hours=11, minutes=59) < lifetime <= dt.timedelta(hours=12)
    assert works(token)


def test_the_lifetime_comes_from_the_settings(user, settings):
    settings.REST_KNOX = {"TOKEN_TTL": dt.timedelta(hours=2), "AUTO_REFRESH": False}
    issue(user)
    row = AuthToken.objects.get(user=user)
    assert row.expiry - row.created <= dt.timedelta(hours=2)


def test_an_expired_token_is_refused(user):
    token = issue(user)
    AuthToken.objects.filter(user=user).update(expiry=timezone.now() - dt.timedelta(seconds=1))
    assert not works(token)


def test_api_logout_revokes_the_token_it_is_signed_with(user):
    token, other = issue(user), issue(user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.post("/api/auth/logout/").status_code == 204
    assert not works(token) and works(other)
    api.credentials(HTTP_AUTHORIZATION=f"Token {other}")
    assert api.post("/api/auth/logoutall/").status_code == 204
    assert not works(other)


def test_web_logout_revokes_every_token_of_the_user(user):
    token = issue(user)
    client = Client()
    client.force_login(user)
    client.post("/accounts/logout/")
    assert not works(token)
    assert AuditEvent.objects.filter(action="api_tokens_revoked",
                                     detail__reason="logout").exists()


def test_the_admin_sites_logout_revokes_them_too_but_an_idle_logoff_does_not(site_admin):
    token = issue(site_admin)
    client = verified_login(Client(), site_admin)
    session = client.session
    session["radreview_last_activity"] = 0  # idle for decades
    session.save()
    assert client.get("/").status_code == 302  # signed out for idleness
    assert works(token)
    verified_login(client, site_admin)
    client.post("/admin/logout/")
    assert not works(token)


def test_a_password_change_revokes_the_tokens(user):
    token = issue(user)
    user.set_password("another-long-passphrase")
    user.save()
    assert not works(token)
    event = AuditEvent.objects.get(action="api_tokens_revoked")
    assert event.detail["reason"] == "password changed"


def test_deactivation_revokes_the_tokens(user):
    token = issue(user)
    user.is_active = False
    user.save()
    assert not AuthToken.objects.filter(user=user).exists()
    assert not works(token)


def test_an_unrelated_save_keeps_the_tokens(user):
    token = issue(user)
    user.first_name = "Ada"
    user.save()
    assert works(token)


def test_admins_list_and_revoke_tokens(user, admin_client_, site_admin):
    token = issue(user)
    row = AuthToken.objects.get(user=user)
    listing = admin_client_.get("/admin/knox/authtoken/")
    assert listing.status_code == 200 and row.token_key in listing.content.decode()
    assert token not in listing.content.decode()
    response = admin_client_.post("/admin/knox/authtoken/", {
        "action": "revoke", "_selected_action": [row.pk]})
    assert response.status_code == 302
    assert not works(token)
    event = AuditEvent.objects.get(action="api_token_revoked")
    assert event.actor == site_admin and event.detail["user"] == user.pk


def test_admins_revoke_all_tokens_of_a_user_from_the_users_page(user, admin_client_):
    token = issue(user)
    admin_client_.post("/admin/accounts/user/", {"action": "revoke_api_tokens",
                                                 "_selected_action": [user.pk]})
    assert not works(token)


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["Token", "Token \xff\xfe", "Token a b", "Token " + "x" * 4000,
                                    "Bearer abc"])
def test_malformed_token_headers_get_401(header):
    api = APIClient()
    response = api.get("/api/studies/", HTTP_AUTHORIZATION=header)
    assert response.status_code in (401, 403)
