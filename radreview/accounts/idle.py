"""Automatic logoff after SESSION_IDLE_SECONDS without a request made by the person.

Pages poll the server (job progress, the review's version); those requests carry the
``X-RadReview-Poll`` header (static/js/radreview.js adds it to every htmx poll) and do not count
as activity, so a study left open on a screen still signs out. The page warns
SESSION_IDLE_WARNING_SECONDS before and offers to stay signed in.
"""
from __future__ import annotations

import time
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpResponse
from django.urls import reverse

from radreview.audit.services import record_event

from .throttling import client_address

LAST_ACTIVITY = "radreview_last_activity"
IDLE_LOGOUT = "radreview_idle_logout"  # marks the request whose session ended for idleness
POLL_HEADER = "X-RadReview-Poll"
RESOLUTION_SECONDS = 10


def is_poll(request) -> bool:
    return request.headers.get(POLL_HEADER) == "1"


class IdleLogoutMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            now = time.time()
            last = request.session.get(LAST_ACTIVITY)
            if isinstance(last, (int, float)) and now - last > settings.SESSION_IDLE_SECONDS:
                return self._sign_out(request, user)
            # Written at most every few seconds: one session write per click, not per request.
            resolution = min(RESOLUTION_SECONDS, settings.SESSION_IDLE_SECONDS / 10)
            if last is None or (not is_poll(request) and now - last > resolution):
                request.session[LAST_ACTIVITY] = now
        return self.get_response(request)

    def _sign_out(self, request, user):
        minutes = settings.SESSION_IDLE_SECONDS // 60
        record_event("logout_idle", actor=user, detail={
            "address": client_address(request), "idle_minutes": minutes,
        })
        setattr(request, IDLE_LOGOUT, True)
        logout(request)
        messages.info(request, f"You were signed out after {minutes} minutes without activity.")
        if getattr(request, "htmx", False):
            page = request.htmx.current_url_abs_path or "/"
            target = reverse("accounts:login") + "?" + urlencode({"next": page})
            return HttpResponse(status=204, headers={"HX-Redirect": target})
        return self.get_response(request)  # the login-required middleware sends it to login


def idle_settings(request) -> dict:
    """Template context: the pages' idle timer (static/js/radreview.js) reads these."""
    return {"idle_seconds": settings.SESSION_IDLE_SECONDS,
            "idle_warning_seconds": settings.SESSION_IDLE_WARNING_SECONDS}
