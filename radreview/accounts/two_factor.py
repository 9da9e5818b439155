"""A second factor (TOTP, django-otp) for local admin accounts.

An admin who set up an authenticator must give its code after the password, on the web
(``/accounts/two-factor/``) and at the token endpoint (``otp_token``). By default
(RADREVIEW_ADMIN_TOTP_REQUIRED) every local admin must set one up at the first sign-in, before
doing anything else; a site that turns this off gets a warning on the setup checklist. Single
sign-on accounts get their second factor from the hospital's provider. Radiologists are not
asked (docs/security.md).
"""
from __future__ import annotations

from django.conf import settings
from django.db.models import Q
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.urls import reverse
from django_otp import devices_for_user, user_has_device
from django_otp.plugins.otp_totp.models import TOTPDevice

from radreview.audit.services import record_event

from .models import User
from .throttling import client_address

# What a signed-in admin who still owes the code may reach.
OPEN_PATHS = ("/accounts/two-factor/", "/accounts/logout/", "/static/")


def applies_to(user) -> bool:
    return bool(user.is_authenticated and user.is_site_admin and user.is_local)


def owes_code(user) -> bool:
    """Whether this signed-in user must still give a code (or set up an authenticator)."""
    if not applies_to(user) or user.is_verified():
        return False
    return settings.ADMIN_TOTP_REQUIRED or user_has_device(user)


def local_admins_enrolled() -> tuple[int, int]:
    """(local admins with a confirmed authenticator, active local admins)."""
    admins = User.objects.filter(Q(oidc_subject__isnull=True) | Q(oidc_subject=""),
                                 role=User.Role.ADMIN, is_active=True)
    enrolled = (TOTPDevice.objects.filter(user__in=admins, confirmed=True)
                .values("user").distinct().count())
    return enrolled, admins.count()


def device_of(user) -> TOTPDevice | None:
    return next(iter(devices_for_user(user, confirmed=True)), None)


def pending_device(user) -> TOTPDevice:
    """The authenticator being set up (made on first visit, confirmed by a first code)."""
    device = TOTPDevice.objects.filter(user=user, confirmed=False).first()
    return device or TOTPDevice.objects.create(user=user, name="Authenticator", confirmed=False)


def verify(request, device: TOTPDevice, code: str) -> bool:
    ok = device.verify_token(code.strip())
    record_event("second_factor_verified" if ok else "second_factor_failed",
                 actor=device.user, detail={"address": client_address(request)})
    return ok


def check_api_code(request, user, code: str) -> str:
    """At the token endpoint: '' when the user may have a token, else why not."""
    if not applies_to(user):
        return ""
    device = device_of(user)
    if device is None:
        if settings.ADMIN_TOTP_REQUIRED:
            return ("Set up an authenticator on the web (Authenticator, in the top bar) before "
                    "using the API.")
        return ""
    if not code:
        return "This admin account has an authenticator: send its current code as otp_token."
    return "" if verify(request, device, code) else "The authenticator code is wrong."


class SecondFactorMiddleware:
    """Holds an admin who owes a code at the two-factor page (pages) or refuses (API)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is None or not owes_code(user) or request.path_info.startswith(OPEN_PATHS):
            return self.get_response(request)
        if request.path_info.startswith("/api/"):
            return JsonResponse({"detail": "Give your authenticator code on the web first."},
                                status=403)
        target = reverse("accounts:two_factor")
        if getattr(request, "htmx", False):
            return HttpResponse(status=204, headers={"HX-Redirect": target})
        return redirect(target)
