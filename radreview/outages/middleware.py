"""Database or broker unavailable: 503 with Retry-After, never a 500, logged once per outage.

An outage is not a bug: the request was fine and will succeed once the service is back, so the
client is told to retry (Retry-After) instead of being shown the 500 page, and the log gets
one line when the outage starts and one when it ends, not a traceback per request (the review
page polls every few seconds). ``handler500`` still answers every other exception: real bugs.

Exceptions raised by a view reach ``process_exception``. Those raised by middleware further in
(loading the session or the user from the database) never reach an outer middleware as
exceptions: Django turns them into a 500 response at once, after sending
``got_request_exception``. So the signal marks the request, the 500 is replaced here. A
request is marked whichever way its outage came, and logs.SkipOutageErrors drops Django's line
for its answer ("Internal Server Error", "Service Unavailable": Django logs every 5xx).

A request whose work is already committed (a review decision) must not be answered 503 when
the database goes away after the commit, in the reads of its answer or the session's save:
the person would be told it failed although it was stored. Such a view registers an answer
that needs no database (``answer_if_unavailable``); an outage after that gets that answer.
"""
from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.core.signals import got_request_exception
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string
from kombu.exceptions import OperationalError as BrokerOperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from radreview.studies import storage

from .logs import OUTAGE_ATTRIBUTE

logger = logging.getLogger(__name__)

COMMITTED_ATTRIBUTE = "_radreview_committed_answer"
MESSAGES = {
    "database": "RadReview cannot reach its database right now.",
    "broker": "RadReview cannot reach its job queue (message broker) right now.",
    "store": "RadReview cannot reach its file store (object storage) right now.",
}


def outage_of(exc: BaseException | None) -> str | None:
    """"database", "broker" or "store" (the media's object store) when ``exc`` says that
    service is unreachable, else None."""
    if isinstance(exc, (DatabaseOperationalError, DatabaseInterfaceError)):
        return "database"
    if isinstance(exc, (BrokerOperationalError, RedisConnectionError, RedisTimeoutError)):
        return "broker"
    if storage.unavailable(exc):
        return "store"
    return None


class OutageLog:
    """One line when a service becomes unreachable, one when it answers again (per process)."""

    def __init__(self):
        self._since: dict[str, float] = {}
        self._lock = threading.Lock()

    def down(self, what: str, exc: BaseException) -> None:
        with self._lock:
            if what in self._since:
                return
            self._since[what] = time.monotonic()
        logger.error("%s unavailable (%s); answering 503 until it is back", what,
                     type(exc).__name__)

    def up(self) -> None:
        if not self._since:
            return
        with self._lock:
            ended, self._since = self._since, {}
        for what, since in ended.items():
            logger.warning("%s available again after %.1f s", what, time.monotonic() - since)


outage_log = OutageLog()


def unavailable(request, what: str) -> HttpResponse:
    retry_after = settings.OUTAGE_RETRY_AFTER_SECONDS
    message = f"{MESSAGES[what]} Try again in {retry_after} seconds."
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": message}, status=503)
    else:
        # No request context: its processors would read the session and the user from the
        # database that is down.
        body = render_to_string("outages/unavailable.html",
                                {"message": MESSAGES[what], "retry_after": retry_after})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(retry_after)
    return response


def answer_if_unavailable(request, answer: Callable[[], HttpResponse]) -> None:
    """What to answer should the database or the broker go away before this request ends: for a
    request whose work is committed. ``answer`` must not use either."""
    setattr(request, COMMITTED_ATTRIBUTE, answer)


def _outage_answer(request, what: str) -> HttpResponse:
    committed = getattr(request, COMMITTED_ATTRIBUTE, None)
    return committed() if committed is not None else unavailable(request, what)


def _mark(request, what: str, exc: BaseException) -> None:
    """The request met an outage: answered by OutageMiddleware, its 5xx kept out of Django's
    per-request log (logs.SkipOutageErrors), the outage logged once."""
    setattr(request, OUTAGE_ATTRIBUTE, what)
    outage_log.down(what, exc)


def _mark_request(sender, request=None, **kwargs):
    exc = sys.exc_info()[1]
    what = outage_of(exc)
    if request is not None and what:
        _mark(request, what, exc)


got_request_exception.connect(_mark_request, dispatch_uid="radreview-outages")


class OutageMiddleware:
    """Placed before the first middleware that touches the database (the session)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        what = getattr(request, OUTAGE_ATTRIBUTE, None)
        if what:
            return _outage_answer(request, what)
        if response.status_code < 500:
            outage_log.up()
        return response

    def process_exception(self, request, exception):
        what = outage_of(exception)
        if what is None:
            return None  # a real bug: handler500
        # Marked too: Django logs every 5xx answer as an error, the view's 503 included (an
        # API token is checked in the view, so every token request in an outage ends here).
        _mark(request, what, exception)
        return _outage_answer(request, what)
