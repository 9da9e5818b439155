"""POST /api/fhir/DiagnosticReport: a report from the RIS or the dictation system, as FHIR.

Answers with a FHIR OperationOutcome saying what became of it: 201 stored (attached to its
study, or waiting for its images), 200 the same resource sent again, 422 refused with the
reason (nothing stored), 400 not JSON.
"""
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from radreview.security.json_limits import BoundedJSONParser

from .fhir import ResourceRefused, read_diagnostic_report
from .services import DeliveryRefused, deliver

FHIR_JSON = "application/fhir+json"


class FhirJSONParser(BoundedJSONParser):
    media_type = FHIR_JSON


def outcome(severity: str, code: str, text: str, http_status: int, study_id=None) -> Response:
    body = {"resourceType": "OperationOutcome",
            "issue": [{"severity": severity, "code": code, "diagnostics": text}]}
    headers = {"Location": reverse("studies:detail", args=[study_id])} if study_id else None
    return Response(body, status=http_status, content_type=FHIR_JSON,
                    headers=headers)


class DiagnosticReportView(APIView):
    parser_classes = [FhirJSONParser, BoundedJSONParser]

    @extend_schema(
        request={FHIR_JSON: OpenApiTypes.OBJECT, "application/json": OpenApiTypes.OBJECT},
        responses={**{(code, FHIR_JSON): OpenApiTypes.OBJECT for code in (200, 201, 422)},
                   (400, "application/json"): OpenApiTypes.OBJECT},
        summary="Deliver a report (FHIR R4 DiagnosticReport) for a study")
    def post(self, request):
        try:
            delivery = read_diagnostic_report(request.data, sender=request.user.get_username())
            delivered = deliver(delivery, user=request.user)
        except (ResourceRefused, DeliveryRefused) as exc:
            return outcome("error", "processing", exc.message, status.HTTP_422_UNPROCESSABLE_ENTITY)
        study_id = delivered.incoming.study_id
        if delivered.replayed:
            return outcome("information", "informational", "Already received; nothing was "
                           "stored twice.", status.HTTP_200_OK, study_id)
        text = ("Stored; it waits for its images (no study has this accession number yet)."
                if delivered.waiting else f"Stored as the report of study #{study_id}.")
        return outcome("information", "informational", text, status.HTTP_201_CREATED, study_id)


urlpatterns = [
    path("fhir/DiagnosticReport", DiagnosticReportView.as_view(), name="api-fhir-report"),
]
