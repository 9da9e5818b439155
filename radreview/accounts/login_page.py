"""What the login page shows, shared by the login view and the lockout answers."""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme

SSO_REFUSED = ("Your single sign-on account has no RadReview role. Ask your administrator to "
               "give you the radiologist or admin role.")


def login_context(request, *, form=None, error: str = "") -> dict:
    if not error and request.GET.get("sso") == "refused":
        error = SSO_REFUSED
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    safe_next = url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()},
                                                require_https=request.is_secure())
    return {
        "form": form or AuthenticationForm(request),
        "error": error,
        "next": next_url if safe_next else "",
        "sso_url": reverse("accounts:sso") if settings.OIDC_ENABLED else "",
        "sso_name": settings.OIDC_PROVIDER_NAME,
    }
