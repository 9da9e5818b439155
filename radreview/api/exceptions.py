"""API errors as JSON with a ``detail`` message, including the ones Django raises before DRF."""
from django.core.exceptions import RequestDataTooBig
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from radreview.studies.storage import OriginalMissing
from radreview.studies.upload_limits import fields_too_large_message


def exception_handler(exc, context):
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": fields_too_large_message()},
                        status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, OriginalMissing):
        return Response({"detail": exc.message}, status=status.HTTP_410_GONE)
    return drf_exception_handler(exc, context)
