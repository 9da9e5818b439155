"""Every sign-in, failed or not, through any door, goes to the audit trail with its address;
and API tokens die with a password change or a deactivation.

Doors: the login page, the admin's login, the API token endpoint and single sign-on. Django
sends ``user_logged_in`` / ``user_login_failed`` from all of them (the token endpoint sends the
first itself); django-axes sends ``user_locked_out`` when an account locks.
"""
from __future__ import annotations

import time

from axes.signals import user_locked_out
from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from radreview.audit.services import record_event

from . import idle, services, throttling
from .models import User


def door(request) -> str:
    path = getattr(request, "path_info", "") or ""
    if path.startswith("/api/"):
        return "api"
    if path.startswith("/admin/"):
        return "admin"
    if path.startswith("/accounts/sso/"):
        return "sso"
    return "web"


@receiver(user_logged_in)
def audit_login(sender, request, user, **kwargs):
    record_event("login", actor=user, detail={
        "via": door(request), "address": throttling.client_address(request),
    })


@receiver(user_logged_in)
def start_idle_clock(sender, request, user, **kwargs):
    session = getattr(request, "session", None)
    if session is not None:
        session[idle.LAST_ACTIVITY] = time.time()


@receiver(user_logged_out)
def audit_logout(sender, request, user, **kwargs):
    """Signing out (the page's button or the admin's) ends all access: the user's API tokens
    are revoked too. An idle logoff only ends the forgotten session."""
    if user is None:
        return
    record_event("logout", actor=user, detail={"address": throttling.client_address(request)})
    if not getattr(request, idle.IDLE_LOGOUT, False):
        services.revoke_all(user, reason="logout", actor=user)


@receiver(user_login_failed)
def audit_failed_login(sender, credentials, request=None, **kwargs):
    if request is None:
        return
    address = throttling.client_address(request)
    # Axes marks both a refused attempt on a locked account and the failure that locks it; only
    # the second tested a password (and set the failure count).
    locked = bool(getattr(request, "axes_locked_out", False)) and \
        getattr(request, "axes_failures_since_start", None) is None
    record_event("login_locked" if locked else "login_failed", detail={
        "via": door(request), "address": address,
        "username": throttling.clean_username(credentials.get("username")),
    })
    if not locked:  # a locked account tests no password: not counted against the address
        throttling.record_address_failure(address)


@receiver(user_locked_out)
def audit_account_locked(sender, request, username, ip_address, **kwargs):
    # Axes also sends this for attempts on an account that is already locked; only the moment
    # of locking is an event (the failure counter is set then).
    if getattr(request, "axes_failures_since_start", None) is None:
        return
    record_event("account_locked", detail={
        "username": throttling.clean_username(username), "address": ip_address,
        "via": door(request),
    })


@receiver(pre_save, sender=User)
def _note_lost_access(sender, instance: User, update_fields=None, **kwargs):
    instance._tokens_revoked_because = ""
    if instance.pk is None:
        return
    if getattr(instance, "_password", None) is not None:
        instance._tokens_revoked_because = "password changed"
    elif update_fields is None or "is_active" in update_fields:
        was_active = User.objects.filter(pk=instance.pk).values_list("is_active", flat=True).first()
        if was_active and not instance.is_active:
            instance._tokens_revoked_because = "deactivated"


@receiver(post_save, sender=User)
def _revoke_tokens_on_lost_access(sender, instance: User, **kwargs):
    reason = getattr(instance, "_tokens_revoked_because", "")
    if reason:
        services.revoke_all(instance, reason=reason)
