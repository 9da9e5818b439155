"""Local admins with their authenticator, for tests that sign one in.

Every local admin must set up an authenticator and give its code before any page answers (the
default, docs/security.md); tests about something else sign the admin in as one who has done
so. The first sign-in itself (QR code, first code) is tested in tests/web/test_two_factor.py
and, in Chromium, by tests/browser/conftest.py's ``log_in``.
"""
from __future__ import annotations

from base64 import b32decode

from django_otp import DEVICE_ID_SESSION_KEY
from django_otp.oath import totp
from django_otp.plugins.otp_totp.models import TOTPDevice


def enrol(user) -> TOTPDevice:
    """The user's confirmed authenticator, set up now if the user has none."""
    device = TOTPDevice.objects.filter(user=user, confirmed=True).first()
    return device or TOTPDevice.objects.create(user=user, name="Authenticator", confirmed=True)


def code(device: TOTPDevice) -> str:
    """The code the authenticator app shows now."""
    device.refresh_from_db()
    return f"{totp(device.bin_key, step=device.step, t0=device.t0, digits=device.digits):06d}"


def secret_code(secret_base32: str) -> str:
    """The code an authenticator app shows now for a key typed in from the setup page."""
    return f"{totp(b32decode(secret_base32)):06d}"


def verified_login(client, user):
    """Sign ``user`` in on ``client`` as an admin who has given the authenticator's code: the
    session holds the device, as django-otp's ``login`` leaves it after the two-factor page."""
    client.force_login(user)
    if user.is_site_admin and user.is_local:
        session = client.session
        session[DEVICE_ID_SESSION_KEY] = enrol(user).persistent_id
        session.save()
    return client
