"""A second factor (TOTP) for local admins: optional, required when the site turns it on, asked
at the web and the token endpoint; radiologists and single sign-on accounts are not asked."""
import pytest
from django.test import Client
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice

from radreview.accounts.models import User
from radreview.audit.models import AuditEvent
from tests import factories

pytestmark = pytest.mark.django_db


def code(device: TOTPDevice) -> str:
    device.refresh_from_db()
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


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
    device = TOTPDevice.objects.create(user=admin, name="Authenticator", confirmed=True)
    return admin, device


def test_an_admin_sets_up_an_authenticator_with_a_first_code():
    admin = factories.make_user(User.Role.ADMIN)
    client = sign_in(admin)
    assert client.get("/").status_code == 200  # optional: nothing asked yet
    page = client.get("/accounts/two-factor/").content.decode()
    assert "Set up your authenticator" in page and 'id="totp-secret"' in page
    qr = client.get("/accounts/two-factor/qr.svg")
    assert qr["Content-Type"] == "image/svg+xml" and b"<svg" in qr.content
    device = TOTPDevice.objects.get(user=admin, confirmed=False)
    assert client.post("/accounts/two-factor/", {"code": "000000"}).status_code == 400
    wait_out_the_throttle(device)
    response = client.post("/accounts/two-factor/", {"code": code(device)})
    assert response.status_code == 302
    device.refresh_from_db()
    assert device.confirmed
    assert AuditEvent.objects.filter(action="second_factor_verified", actor=admin).exists()
    assert AuditEvent.objects.filter(action="second_factor_failed", actor=admin).exists()


def test_an_enrolled_admin_must_give_the_code_before_anything_else():
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


def test_when_the_site_requires_it_an_admin_without_one_must_set_it_up(settings):
    settings.ADMIN_TOTP_REQUIRED = True
    admin = factories.make_user(User.Role.ADMIN)
    client = sign_in(admin)
    assert client.get("/")["Location"] == "/accounts/two-factor/"
    assert "Set up your authenticator" in client.get("/accounts/two-factor/").content.decode()
    radiologist = sign_in(factories.make_user())  # radiologists are not asked
    assert radiologist.get("/").status_code == 200


def test_the_token_endpoint_asks_an_enrolled_admin_for_the_code(settings):
    admin, device = enrolled_admin()
    body = {"username": admin.username, "password": factories.PASSWORD}
    missing = Client().post("/api/auth/token/", body)
    assert missing.status_code == 400 and "otp_token" in missing.json()["detail"]
    wrong = Client().post("/api/auth/token/", {**body, "otp_token": "000000"})
    assert wrong.status_code == 400 and "wrong" in wrong.json()["detail"]
    wait_out_the_throttle(device)
    right = Client().post("/api/auth/token/", {**body, "otp_token": code(device)})
    assert right.status_code == 200 and right.json()["token"]
    settings.ADMIN_TOTP_REQUIRED = True
    other = factories.make_user(User.Role.ADMIN)
    refused = Client().post("/api/auth/token/", {"username": other.username,
                                                 "password": factories.PASSWORD})
    assert refused.status_code == 400 and "Set up an authenticator" in refused.json()["detail"]


def test_single_sign_on_admins_get_their_second_factor_from_the_provider(settings):
    settings.ADMIN_TOTP_REQUIRED = True
    admin = factories.make_user(User.Role.ADMIN)
    User.objects.filter(pk=admin.pk).update(oidc_subject="sub-123")
    client = Client()
    client.force_login(User.objects.get(pk=admin.pk))
    assert client.get("/").status_code == 200
    assert client.get("/accounts/two-factor/").status_code == 403
