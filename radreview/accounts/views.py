"""Signing in and out: the login page (password or single sign-on), the admins' second factor,
logout, and the idle-logoff keep-alive. Throttling and auditing: throttling.py, signals.py."""
from __future__ import annotations

from base64 import b32encode

import qrcode
import qrcode.image.svg
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django_otp import login as otp_login

from . import throttling, two_factor
from .forms import ShortcutsForm
from .login_page import login_context


@method_decorator(login_not_required, name="dispatch")
class LoginView(auth_views.LoginView):
    """The login page. A locked account is refused by django-axes (429, through its
    middleware); an address over its failure rate is refused here, before any password check."""

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        wait = throttling.address_wait(throttling.client_address(request))
        if wait:
            return throttling.address_refusal(request, wait)
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        page = login_context(self.request, form=context["form"])
        page["next"] = context.get("next") or page["next"]
        return {**context, **page}


@login_not_required
def admin_login(request):
    """The Django admin's login: admins use the same login; others get a plain refusal."""
    if request.user.is_authenticated:
        raise PermissionDenied("The admin area is for admins only.")
    return LoginView.as_view()(request)


@require_POST
def keepalive(request):
    """'Stay signed in' on the idle warning: any request counts as activity (accounts/idle.py)."""
    return HttpResponse(status=204)


def two_factor_page(request):
    """Give the authenticator's code, or set one up (the first code confirms it)."""
    user = request.user
    if not two_factor.applies_to(user):
        raise PermissionDenied("Two-factor sign-in applies to local admin accounts.")
    device = two_factor.device_of(user)
    setting_up = device is None
    if setting_up:
        device = two_factor.pending_device(user)
    error = ""
    if request.method == "POST":
        if two_factor.verify(request, device, str(request.POST.get("code", ""))[:16]):
            if setting_up:
                device.confirmed = True
                device.save(update_fields=["confirmed"])
                messages.success(request, "Your authenticator is set up: admins sign in with "
                                          "its code from now on.")
            otp_login(request, device)
            return redirect(_next_page(request))
        error = "That code is not right (or was already used). Try the next one."
    return render(request, "accounts/two_factor.html", {
        "setting_up": setting_up, "secret": _secret(device) if setting_up else "",
        "error": error, "next": _next_page(request), "verified": user.is_verified(),
    }, status=400 if error else 200)


def two_factor_qr(request):
    """The QR code of the authenticator being set up (never of a confirmed one)."""
    if not two_factor.applies_to(request.user) or two_factor.device_of(request.user):
        raise PermissionDenied("Nothing to set up.")
    device = two_factor.pending_device(request.user)
    image = qrcode.make(device.config_url, image_factory=qrcode.image.svg.SvgPathImage)
    return HttpResponse(image.to_string(), content_type="image/svg+xml")


def _secret(device) -> str:
    return b32encode(device.bin_key).decode()


def _next_page(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or "/"
    allowed = url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()},
                                              require_https=request.is_secure())
    return target if allowed else "/"


def settings_page(request):
    """The user's own settings: the single-key shortcuts (radreview/accounts/shortcuts.py)."""
    form = ShortcutsForm(request.POST or None, user=request.user)
    if request.method == "POST" and form.is_valid():
        form.save(request.user)
        messages.success(request, "Your shortcut settings are saved.")
        return redirect("accounts:settings")
    return render(request, "accounts/settings.html", {"form": form},
                  status=400 if form.errors else 200)
