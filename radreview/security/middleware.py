"""Middleware that keeps patient data out of caches and hostile ids away from the database.

Kept apart from other middleware (e.g. database-outage handling) so each concern stays one file.
"""
from __future__ import annotations

from django.http import Http404, HttpResponseBadRequest

# Database integer columns are 64-bit signed; a larger id in a URL can match nothing.
LARGEST_ID = 2**63 - 1


class NoStoreMiddleware:
    """``Cache-Control: no-store`` on every response the application makes: pages, htmx
    partials, API answers, images and exports all may carry patient data. Static files are
    answered by WhiteNoise before this middleware and stay cacheable."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response["Cache-Control"] = "no-store"
        response["Pragma"] = "no-cache"
        return response


class RefuseNulMiddleware:
    """400 for a NUL character in the path or the query string: never legitimate, and
    PostgreSQL refuses it in any text it is asked to compare (a 500 otherwise)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
            return HttpResponseBadRequest("The address contains a NUL character.",
                                          content_type="text/plain; charset=utf-8")
        return self.get_response(request)


class BoundedIdsMiddleware:
    """A 404 for an integer in a URL that no row can have (SQLite raises OverflowError on a
    foreign-key lookup with a 20-digit id; PostgreSQL an out-of-range error). Applies to every
    URL pattern, present and future."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        for value in (*view_args, *view_kwargs.values()):
            if isinstance(value, int) and not -LARGEST_ID <= value <= LARGEST_ID:
                raise Http404("No such object")
        return None
