"""Single sign-on against a real OpenID provider (django-oauth-toolkit, its own process): the
role claim maps to RadReview's roles, users with neither are refused, every outcome audited."""
import re
import subprocess
import sys
from urllib.parse import urlsplit

import pytest
import requests

from radreview.accounts.models import User
from radreview.audit.models import AuditEvent
from tests import factories
from tests.support import oidc

pytestmark = pytest.mark.django_db


def sign_on(client, provider, username: str):
    """Go through the provider as a browser would; return RadReview's answer to the callback."""
    start = client.get("/accounts/sso/")
    assert start.status_code == 302 and start["Location"].startswith(provider.url)
    browser = requests.Session()
    login_page = browser.get(start["Location"], timeout=30)  # redirected to the provider's login
    assert "Hospital sign-in" in login_page.text
    token = browser.cookies["provider_csrftoken"]
    answer = browser.post(login_page.url, timeout=30, allow_redirects=False, data={
        "csrfmiddlewaretoken": token, "username": username, "password": oidc.PASSWORD,
        "next": re.search(r'name="next" value="([^"]*)"', login_page.text).group(1)
        .replace("&amp;", "&"),
    }, headers={"Referer": login_page.url})
    while answer.status_code == 302 and answer.headers["Location"].startswith(("/", provider.url)):
        answer = browser.get(requests.compat.urljoin(provider.url, answer.headers["Location"]),
                             timeout=30, allow_redirects=False)
    callback = urlsplit(answer.headers["Location"])
    assert callback.path == "/accounts/sso/callback/"
    return client.get(f"{callback.path}?{callback.query}")


@pytest.mark.parametrize("username, role", [("alice", "radiologist"), ("bob", "admin"),
                                            ("dave", "radiologist")])
def test_the_role_claim_gives_the_role(client, sso, username, role):
    response = sign_on(client, sso, username)
    assert response.status_code == 302 and response["Location"] == "/"
    user = User.objects.get(oidc_subject__isnull=False)
    assert (user.username, user.role, user.email) == (username, role, f"{username}@hospital.test")
    assert not user.has_usable_password() and not user.is_local
    assert client.get("/").status_code == 200
    event = AuditEvent.objects.get(action="login")
    assert event.actor == user and event.detail["via"] == "sso"


def test_a_user_with_neither_role_is_refused_and_the_refusal_audited(client, sso):
    response = sign_on(client, sso, "carol")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?sso=refused"
    page = client.get(response["Location"])
    assert "has no RadReview role" in page.content.decode()
    assert not User.objects.filter(username="carol").exists()
    assert client.get("/").status_code == 302
    event = AuditEvent.objects.get(action="login_refused")
    assert event.detail["username"] == "carol" and event.detail["via"] == "sso"


def test_a_local_account_of_the_same_name_is_never_taken_over(client, sso):
    local = factories.make_user(User.Role.ADMIN, username="alice")
    sign_on(client, sso, "alice")
    sso_user = User.objects.get(oidc_subject__isnull=False)
    assert sso_user.pk != local.pk and sso_user.username.startswith("alice-")
    assert sso_user.role == User.Role.RADIOLOGIST


def test_signing_on_again_finds_the_same_account(client, sso):
    sign_on(client, sso, "alice")
    client.logout()
    sign_on(client, sso, "alice")
    assert User.objects.filter(oidc_subject__isnull=False).count() == 1


def test_the_login_page_offers_single_sign_on_only_when_configured(client, sso, settings):
    assert "Sign in with Hospital sign-in" in client.get("/accounts/login/").content.decode()
    settings.OIDC_ENABLED = False
    assert "Sign in with" not in client.get("/accounts/login/").content.decode()
    assert client.get("/accounts/sso/").status_code == 404


def test_an_unreachable_provider_sends_the_user_back_with_a_reason(client, sso, settings):
    client.get("/accounts/sso/")
    state = next(iter(client.session["oidc_states"]))
    settings.OIDC_OP_TOKEN_ENDPOINT = "http://127.0.0.1:9/o/token/"  # nothing listens there
    response = client.get("/accounts/sso/callback/", {"code": "x", "state": state})
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?sso=failed"


def test_single_sign_on_is_configured_from_the_environment():
    env = {"RADREVIEW_OIDC_CLIENT_ID": "rr", "RADREVIEW_OIDC_CLIENT_SECRET": "s",
           "RADREVIEW_OIDC_AUTHORIZATION_ENDPOINT": "https://idp/auth",
           "RADREVIEW_OIDC_TOKEN_ENDPOINT": "https://idp/token",
           "RADREVIEW_OIDC_USERINFO_ENDPOINT": "https://idp/userinfo",
           "RADREVIEW_OIDC_JWKS_ENDPOINT": "https://idp/jwks",
           "RADREVIEW_OIDC_ROLES_CLAIM": "groups", "RADREVIEW_OIDC_ADMIN_VALUE": "rr-admins"}
    script = ("import django; django.setup(); from django.conf import settings as s; "
              "print(s.OIDC_ENABLED, s.OIDC_OP_TOKEN_ENDPOINT, s.OIDC_ROLES_CLAIM, "
              "s.OIDC_ADMIN_VALUE)")
    base = {"DJANGO_SETTINGS_MODULE": "tests.settings", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", script], env={**base, **env}, cwd=oidc.ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "https://idp/token", "groups", "rr-admins"]
    missing = {key: value for key, value in env.items() if "JWKS" not in key}
    failed = subprocess.run([sys.executable, "-c", script], env={**base, **missing},
                            cwd=oidc.ROOT, capture_output=True, text=True)
    assert failed.returncode != 0 and "RADREVIEW_OIDC_JWKS_ENDPOINT" in failed.stderr
