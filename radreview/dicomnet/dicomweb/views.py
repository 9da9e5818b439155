"""DICOMweb (QIDO-RS search, WADO-RS retrieve) over RadReview's own studies, for OHIF or any
DICOMweb client and for the review page's viewer. Under /api/, so a token or a session is
required like the rest of the API. Read-only: radiologists and admins may both read. Every read
of a study's series, instances, metadata or pixels is a view of the study in the audit trail
(once per user and study per window, audit.services.record_study_view); the search of studies
is a list, like the worklist, not a view."""
from __future__ import annotations

import json

from django.http import Http404, HttpResponse
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.views import APIView

from radreview.audit.services import record_study_view

from . import catalog, documents, multipart

DICOM_JSON = "application/dicom+json"
MAX_RESULTS = 500


class AnyAccept(BaseContentNegotiation):
    """DICOMweb clients ask for multipart/related and application/dicom+json, which DRF's
    renderers do not know; these views write their own bodies."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class DicomWebView(APIView):
    content_negotiation_class = AnyAccept
    # DICOMweb is specified by DICOM PS3.18, not by RadReview's OpenAPI schema.
    schema = None

    def root(self, request) -> str:
        return request.build_absolute_uri("/api/dicomweb").rstrip("/")


def _json_response(payload: list) -> HttpResponse:
    if not payload:
        return HttpResponse(status=204)
    return HttpResponse(json.dumps(payload), content_type=DICOM_JSON)


def _limits(request) -> tuple[int, int]:
    def number(name: str, default: int) -> int:
        try:
            return max(0, int(request.GET.get(name, default)))
        except ValueError:
            return default
    return number("offset", 0), min(number("limit", MAX_RESULTS) or MAX_RESULTS, MAX_RESULTS)


def _viewed(request, images) -> None:
    """A view of every RadReview study the images belong to (one StudyInstanceUID may be held
    by several)."""
    for study in {image.study_id: image.study for image in images}.values():
        record_study_view(request.user, study, via="dicomweb")


def _images(study_uid: str, series_uid: str = "", sop_uid: str = ""):
    images = catalog.images_of(study_uid, series_uid, sop_uid)
    if not images:
        raise Http404("No such study, series or instance")
    return images


class SearchStudies(DicomWebView):
    def get(self, request):
        try:
            entries = catalog.group_by_uid(catalog.published_studies(request.GET))
        except catalog.QueryError as exc:
            return HttpResponse(str(exc), status=400, content_type="text/plain")
        offset, limit = _limits(request)
        root = self.root(request)
        return _json_response([documents.study_document(e, f"{root}/studies/{e.uid}")
                               for e in entries[offset:offset + limit]])


class SearchSeries(DicomWebView):
    def get(self, request, study):
        images = catalog.images_of(study)
        _viewed(request, images)
        return _json_response(documents.series_documents(study, images,
                                                         f"{self.root(request)}/studies/{study}"))


class SearchInstances(DicomWebView):
    def get(self, request, study, series=""):
        images = catalog.images_of(study, series)
        _viewed(request, images)
        return _json_response(documents.instance_documents(
            study, images, f"{self.root(request)}/studies/{study}"))


class Retrieve(DicomWebView):
    """WADO-RS: whole instances (application/dicom) of a study, a series or one instance."""

    def get(self, request, study, series="", instance=""):
        images = _images(study, series, instance)
        body, boundary = multipart.encode((catalog.file_bytes(image), "application/dicom")
                                          for image in images)
        _viewed(request, images)
        return HttpResponse(body, content_type=multipart.content_type("application/dicom",
                                                                      boundary))


class Metadata(DicomWebView):
    def get(self, request, study, series="", instance=""):
        images = _images(study, series, instance)
        body = json.dumps([documents.metadata_document(i) for i in images])
        _viewed(request, images)
        return HttpResponse(body, content_type=DICOM_JSON)


class Frames(DicomWebView):
    """WADO-RS frames, uncompressed (Explicit VR Little Endian pixel bytes)."""

    def get(self, request, study, series, instance, frames):
        image = _images(study, series, instance)[0]
        try:
            numbers = [int(n) for n in frames.split(",")]
            parts = [(documents.frame(image, n), documents.FRAME_TYPE) for n in numbers]
        except (ValueError, documents.NoSuchFrame):
            raise Http404("No such frame") from None
        body, boundary = multipart.encode(parts)
        _viewed(request, [image])
        return HttpResponse(body, content_type=multipart.content_type(
            "application/octet-stream", boundary))
