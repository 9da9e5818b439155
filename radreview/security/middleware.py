"""Middleware that keeps patient data out of caches, hostile ids away from the database, and
oversized forms from ending as a bare 400.

Kept apart from other middleware (e.g. database-outage handling) so each concern stays one file.
"""
from __future__ import annotations

from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponseBadRequest
from django.middleware import csrf

from radreview.studies.upload_limits import OVERSIZE_ATTRIBUTE, fields_too_large_message

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


class CsrfViewMiddleware(csrf.CsrfViewMiddleware):
    """Django's CSRF check, which reads a posted form before any view does. A form whose fields
    pass DATA_UPLOAD_MAX_MEMORY_SIZE (a report of megabytes pasted on the upload page) made it
    raise RequestDataTooBig, which Django answers with a bare "Bad Request (400)" that the
    upload page cannot show. Here the reason is noted on the request, as the upload handler
    notes an oversized file, and the CSRF failure view answers 413 with it, as the API does."""

    def process_view(self, request, callback, callback_args, callback_kwargs):
        try:
            return super().process_view(request, callback, callback_args, callback_kwargs)
        except RequestDataTooBig:
            request._mark_post_parse_error()  # as Django's handler does: never parsed again
            setattr(request, OVERSIZE_ATTRIBUTE, fields_too_large_message())
            return self._reject(request, "the form is larger than DATA_UPLOAD_MAX_MEMORY_SIZE")
