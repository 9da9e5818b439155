"""A second factor (TOTP) for local admins: required by default, set up at the first sign-in
before anything else, optional when the site turns it off (the setup checklist warns), asked
at the web and the token endpoint; radiologists and single sign-on accounts are not asked."""
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from radreview.accounts.models import User
from radreview.audit.models import AuditEvent
from tests import factories
from tests.support.two_factor import code, enrol, secret_code, verified_login

pytestmark = pytest.mark.django_db


def wait_out_the_throttle(device: TOTPDevice) -> None:
    """django-otp refuses every code for a growing delay after a wrong one; skip the wait."""
    TOTPDevice.objects.filter(pk=device.pk).update(throttling_failure_count=0,
                                                   throttling_failure_timestamp=None)


def sign_in(user) -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": user.username,
                                                "password": factories.PASSWORD})
    assert response.status_code == 302
    return client


def enrolled_admin() -> tuple[User, TOTPDevice]:
    admin = factories.make_user(User.Role.ADMIN)
    return admin, enrol(admin)


def test_at_the_first_sign_in_an_admin_sets_up_an_authenticator_before_anything_else():
    admin = factories.make_user(User.Role.ADMIN)
    client = sign_in(admin)  # the site's default: required
    for path in ("/", "/admin/", "/audit/", "/site/setup/"):
        assert client.get(path)["Location"] == "/accounts/two-factor/"
    assert client.get("/api/studies/").status_code == 403
    page = client.get("/accounts/two-factor/").content.decode()
    assert "Set up your authenticator" in page and 'id="totp-secret"' in page
    qr = client.get("/accounts/two-factor/qr.svg")
    assert qr["Content-Type"] == "image/svg+xml" and b"<svg" in qr.content
    device = TOTPDevice.objects.get(user=admin, confirmed=False)
    assert client.post("/accounts/two-factor/", {"code": "000000"}).status_code == 400
    assert client.get("/").status_code == 302
    wait_out_the_throttle(device)
    response = client.post("/accounts/two-factor/", {"code": code(device)})
    assert response.status_code == 302 and response["Location"] == "/"
    device.refresh_from_db()
    assert device.confirmed
    assert client.get("/").status_code == 200
    assert AuditEvent.objects.filter(action="second_factor_verified", actor=admin).exists()
    assert AuditEvent.objects.filter(action="second_factor_failed", actor=admin).exists()
    radiologist = sign_in(factories.make_user())  # radiologists are not asked
    assert radiologist.get("/").status_code == 200


def test_the_demo_admin_of_scripts_run_sh_sets_one_up_at_the_first_sign_in(
        settings, tmp_path, monkeypatch):
    settings.DATA_DIR = tmp_path
    monkeypatch.setenv("RADREVIEW_DEMO_ADMIN", "demo-admin:a-demo-passphrase")
    printed = StringIO()
    call_command("ensure_demo_users", stdout=printed)
    assert "the first sign-in sets up an authenticator app" in printed.getvalue()
    client = Client()
    client.post("/accounts/login/", {"username": "demo-admin", "password": "a-demo-passphrase"})
    page = client.get(client.get("/")["Location"]).content.decode()
    secret = re.search(r'id="totp-secret">(\w+)<', page).group(1)
    assert client.post("/accounts/two-factor/", {"code": secret_code(secret)})["Location"] == "/"
    assert client.get("/").status_code == 200
    printed = StringIO()
    call_command("ensure_demo_users", stdout=printed)  # scripts/run.sh's next start
    assert "demo-admin" in printed.getvalue() and "authenticator" not in printed.getvalue()


def test_a_site_that_turns_it_off_gets_a_warning_on_the_setup_checklist(settings):
    admin = factories.make_user(User.Role.ADMIN)
    step = 'data-step="admin_second_factor" data-done="{}"'
    page = verified_login(Client(), admin).get("/site/setup/").content.decode()
    assert step.format("yes") in page and "local admins with an authenticator: 1 of 1" in page
    assert "Warning:" not in page

    settings.ADMIN_TOTP_REQUIRED = False
    other = sign_in(factories.make_user(User.Role.ADMIN))
    assert other.get("/").status_code == 200  # optional: nothing asked
    page = other.get("/site/setup/").content.decode()
    assert step.format("no") in page and "RADREVIEW_ADMIN_TOTP_REQUIRED=0" in page
    assert "Warning: local admins sign in with a password alone" in page
    assert "local admins with an authenticator: 1 of 2" in page
    # An admin may still set one up, and from then on gives its code.
    assert "Set up your authenticator" in other.get("/accounts/two-factor/").content.decode()


@pytest.mark.parametrize("required", [True, False])
def test_an_enrolled_admin_must_give_the_code_before_anything_else(settings, required):
    settings.ADMIN_TOTP_REQUIRED = required  # once set up, asked even where it is optional
    admin, device = enrolled_admin()
    client = sign_in(admin)
    for path in ("/", "/admin/", "/audit/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"] == "/accounts/two-factor/"
    assert client.get("/api/studies/").status_code == 403
    assert client.get("/", HTTP_HX_REQUEST="true")["HX-Redirect"] == "/accounts/two-factor/"
    assert "Authenticator code" in client.get("/accounts/two-factor/").content.decode()
    assert client.post("/accounts/two-factor/", {"code": "123456"}).status_code == 400
    assert client.get("/").status_code == 302
    # Right after a wrong code even the right one is refused: guessing is throttled.
    assert client.post("/accounts/two-factor/", {"code": code(device)}).status_code == 400
    wait_out_the_throttle(device)
    assert client.post("/accounts/two-factor/", {"code": code(device), "next": "/audit/"}
                       )["Location"] == "/audit/"
    assert client.get("/audit/").status_code == 200


def test_the_token_endpoint_asks_an_enrolled_admin_for_the_code():
    admin, device = enrolled_admin()
    body = {"username": admin.username, "password": factories.PASSWORD}
    missing = Client().post("/api/auth/token/", body)
    assert missing.status_code == 400 and "otp_token" in missing.json()["detail"]
    wrong = Client().post("/api/auth/token/", {**body, "otp_token": "000000"})
    assert wrong.status_code == 400 and "wrong" in wrong.json()["detail"]
    wait_out_the_throttle(device)
    right = Client().post("/api/auth/token/", {**body, "otp_token": code(device)})
    assert right.status_code == 200 and right.json()["token"]
    other = factories.make_user(User.Role.ADMIN)
    refused = Client().post("/api/auth/token/", {"username": other.username,
                                                 "password": factories.PASSWORD})
    assert refused.status_code == 400 and "Set up an authenticator" in refused.json()["detail"]


def test_single_sign_on_admins_get_their_second_factor_from_the_provider():
    admin = factories.make_user(User.Role.ADMIN)
    User.objects.filter(pk=admin.pk).update(oidc_subject="sub-123")
    client = Client()
    client.force_login(User.objects.get(pk=admin.pk))
    assert client.get("/").status_code == 200
    assert client.get("/accounts/two-factor/").status_code == 403
