"""A study's image file that is gone is a fact a person can act on, not a server error."""
from django.http import HttpResponse

from .storage import OriginalMissing


class OriginalMissingMiddleware:
    """Pages that serve a study's files (previews, renders) answer 410 with the reason."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, OriginalMissing):
            return HttpResponse(exception.message, status=410,
                                content_type="text/plain; charset=utf-8")
        return None
