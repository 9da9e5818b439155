"""Single sign-on with the hospital's OpenID Connect provider (mozilla-django-oidc).

Off unless RADREVIEW_OIDC_CLIENT_ID is set (settings.OIDC_ENABLED). A user is matched by the
provider's subject (``sub``), never by e-mail or username, so a local account cannot be taken
over by a provider account of the same name. The role comes from a claim at every sign-in: the
claim's radiologist value gives the radiologist role, else its admin value the admin role (a
user with both is a radiologist: least privilege); a user with neither is refused and the refusal
is audited.
"""
from __future__ import annotations

import logging

import requests
from django.conf import settings
from django.http import Http404, HttpResponseRedirect
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from radreview.audit.services import record_event

from .models import User
from .throttling import clean_username, client_address

logger = logging.getLogger(__name__)

FAILED_URL = "/accounts/login/?sso=failed"
REFUSED_URL = "/accounts/login/?sso=refused"


def role_from_claims(claims: dict) -> str | None:
    """RadReview's role for these claims, or None when they carry neither role."""
    value = claims.get(settings.OIDC_ROLES_CLAIM)
    values = {value} if isinstance(value, str) else set(value) if isinstance(value, list) else set()
    values = {item for item in values if isinstance(item, str)}
    if settings.OIDC_RADIOLOGIST_VALUE in values:
        return User.Role.RADIOLOGIST
    if settings.OIDC_ADMIN_VALUE in values:
        return User.Role.ADMIN
    return None


class RoleMappingOIDCBackend(OIDCAuthenticationBackend):
    def authenticate(self, request, **kwargs):
        # Only the SSO callback passes a nonce; password sign-ins never reach the provider.
        if not settings.OIDC_ENABLED or "nonce" not in kwargs:
            return None
        return super().authenticate(request, **kwargs)

    def verify_claims(self, claims) -> bool:
        if not isinstance(claims.get("sub"), str) or not claims["sub"]:
            return False
        if role_from_claims(claims) is None:
            self.request.radreview_sso_refused = True
            record_event("login_refused", detail={
                "via": "sso", "username": clean_username(claims.get("preferred_username")),
                "address": client_address(self.request), "reason": "no RadReview role",
            })
            return False
        return True

    def filter_users_by_claims(self, claims):
        return User.objects.filter(oidc_subject=claims["sub"])

    def create_user(self, claims) -> User:
        user = User(username=self._free_username(claims), oidc_subject=claims["sub"])
        user.set_unusable_password()
        return self.update_user(user, claims)

    def update_user(self, user: User, claims) -> User:
        user.role = role_from_claims(claims)
        user.email = str(claims.get("email") or "")[:254]
        user.first_name = str(claims.get("given_name") or "")[:150]
        user.last_name = str(claims.get("family_name") or "")[:150]
        user.save()
        return user

    @staticmethod
    def _free_username(claims) -> str:
        base = clean_username(claims.get("preferred_username")) or "sso-user"
        base = "".join(ch for ch in base if ch.isalnum() or ch in "@.+-_")[:120] or "sso-user"
        if not User.objects.filter(username=base).exists():
            return base
        return f"{base}-{claims['sub'][:20]}"


class SignOnView(OIDCAuthenticationRequestView):
    """Starts single sign-on: a redirect to the provider (404 while SSO is off)."""

    def dispatch(self, request, *args, **kwargs):
        if not settings.OIDC_ENABLED:
            raise Http404("Single sign-on is not configured")
        return super().dispatch(request, *args, **kwargs)


class CallbackView(OIDCAuthenticationCallbackView):
    """The provider's answer. A provider that cannot be reached, or a user without a role, is
    sent back to the login page with the reason instead of an error page."""

    def dispatch(self, request, *args, **kwargs):
        if not settings.OIDC_ENABLED:
            raise Http404("Single sign-on is not configured")
        try:
            return super().dispatch(request, *args, **kwargs)
        except requests.RequestException as exc:
            logger.warning("single sign-on failed: the provider answered %s", type(exc).__name__)
            return HttpResponseRedirect(FAILED_URL)

    @property
    def failure_url(self):
        return REFUSED_URL if getattr(self.request, "radreview_sso_refused", False) else FAILED_URL
