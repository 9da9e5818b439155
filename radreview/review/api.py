"""The review over the API, with the page's permissions: anyone logged in reads; only
radiologists decide, undo and sign. A decision made on a stale review version gets 409."""
from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from radreview.audit.services import record_study_view
from radreview.studies.models import Study
from radreview.studies.selectors import study_with_everything
from workers.detectors import DETECTORS, evidence_schema

from . import selectors, services
from .exports import BUILDERS
from .labels import label_of
from .models import Decision, Detection, SignOff


class ReadOrRadiologist(BasePermission):
    message = "Only radiologists may decide and sign."

    def has_permission(self, request, view):
        user = request.user
        if not (user and user.is_authenticated):
            return False
        return request.method in SAFE_METHODS or user.is_radiologist


# --- serializers -----------------------------------------------------------------------------


EVIDENCE_HELP = "The detector's evidence; GET /api/detectors/ gives each detector's schema"


class SourceSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="detection.pk")
    detector = serializers.CharField()
    label = serializers.CharField(help_text="The detector as a radiologist reads it")
    explanation = serializers.CharField()
    harm = serializers.CharField()
    confidence = serializers.FloatField()
    suggestion = serializers.CharField(allow_null=True)
    evidence = serializers.JSONField(help_text=EVIDENCE_HELP)


class MemberFigureSerializer(serializers.Serializer):
    detector = serializers.CharField()
    confidence = serializers.FloatField(help_text="The detector's own confidence")
    harm = serializers.CharField()


class FiguresSerializer(serializers.Serializer):
    """The flag's confidence explained (radreview/review/confidence.py)."""

    kind = serializers.ChoiceField(choices=["probability", "score"],
                                   help_text="probability: the calibrated probability of error")
    value = serializers.FloatField()
    score = serializers.FloatField(help_text="The combination's raw score (or the detector's)")
    source = serializers.CharField()
    why_score = serializers.CharField(help_text="Why the figure is a score, when it is one")
    members = MemberFigureSerializer(many=True)
    reasons = serializers.ListField(child=serializers.CharField(),
                                    help_text="Why the figure differs from the members' own")
    harm = serializers.CharField()
    harm_set_by = serializers.CharField(help_text="The member whose harm the flag shows")
    guarantees = serializers.ListField(child=serializers.CharField(),
                                       help_text="Calibrated flags and their calibration")
    flagged_because = serializers.ListField(child=serializers.CharField())
    notes = serializers.ListField(child=serializers.CharField(),
                                  help_text="Site rules that removed, or did not remove, a flag")


class FlagSerializer(serializers.Serializer):
    detections = serializers.SerializerMethodField()
    harm = serializers.CharField()
    confidence = serializers.FloatField(help_text="explained.value: a probability or a score")
    explained = FiguresSerializer(source="figures")
    suggestion = serializers.CharField(
        allow_null=True, help_text='Replacement text; "" removes the sentence.'
    )
    open = serializers.BooleanField(source="is_open")
    sources = SourceSerializer(many=True)

    def get_detections(self, flag) -> list[int]:
        return [d.pk for d in flag.detections]


SENTENCE_INDEX = "Sentence index, counted from 0 (what requests send)"
SENTENCE_NUMBER = "Sentence number as people read it, counted from 1 (index + 1)"


class DecisionSerializer(serializers.ModelSerializer):
    sentence = serializers.IntegerField(source="sentence.index", allow_null=True,
                                        help_text=SENTENCE_INDEX)
    sentence_number = serializers.SerializerMethodField(help_text=SENTENCE_NUMBER)
    user = serializers.CharField(source="user.get_username")

    class Meta:
        model = Decision
        fields = ["id", "action", "sentence", "sentence_number", "detection", "before_text",
                  "after_text", "undoes", "user", "created_at", "study_version"]

    def get_sentence_number(self, decision) -> int | None:
        return decision.sentence.index + 1 if decision.sentence is not None else None


class SentenceReviewSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text=SENTENCE_INDEX)
    number = serializers.SerializerMethodField(help_text=SENTENCE_NUMBER)
    section = serializers.CharField()
    text = serializers.CharField(source="original", help_text="As the audited report has it")
    current_text = serializers.CharField(
        source="current", help_text='After the effective decision ("" = removed)'
    )
    state = serializers.ChoiceField(choices=["unchanged", "accepted", "rejected", "edited"])
    category = serializers.CharField(source="sentence.category")
    findings = serializers.JSONField(source="sentence.findings")
    support = serializers.IntegerField(source="sentence.support", allow_null=True)
    support_n = serializers.IntegerField(source="sentence.support_n", allow_null=True)
    decision = DecisionSerializer(allow_null=True)
    flag = FlagSerializer(allow_null=True)
    notes = serializers.ListField(child=serializers.CharField(),
                                  help_text="Site rules that removed a flag on this sentence")

    def get_number(self, sentence) -> int:
        return sentence.index + 1


class DetectionSerializer(serializers.ModelSerializer):
    sources = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    is_flag = serializers.SerializerMethodField(
        help_text="Whether the review page shows it as a flag"
    )
    sentence_number = serializers.SerializerMethodField(help_text=SENTENCE_NUMBER)
    label = serializers.SerializerMethodField(help_text="The detector as a radiologist reads it")

    class Meta:
        model = Detection
        fields = ["id", "sentence_index", "sentence_number", "start", "end", "detector", "label",
                  "explanation", "harm", "confidence", "evidence", "suggestion", "flagged",
                  "is_flag", "sources", "prompt_version", "model_name"]

    def get_label(self, detection) -> str:
        return label_of(detection.detector)

    def get_sentence_number(self, detection) -> int:
        return detection.sentence_index + 1

    def get_is_flag(self, detection) -> bool:
        return detection.pk in self.context.get("flag_ids", ())


class SignOffSerializer(serializers.ModelSerializer):
    signer = serializers.CharField(source="signer.get_username")
    text = serializers.CharField(source="report.text")
    exports = serializers.SerializerMethodField()

    class Meta:
        model = SignOff
        fields = ["version", "signer", "signer_name", "signer_role", "attestation", "signed_at",
                  "sha256", "decision_ids", "sections", "text", "exports"]

    def get_exports(self, signoff) -> dict[str, str]:
        return {
            fmt: f"/api/studies/{signoff.study_id}/signoffs/{signoff.version}/export/{fmt}/"
            for fmt in BUILDERS
        }


class ReviewSerializer(serializers.Serializer):
    study = serializers.IntegerField(source="study.pk")
    status = serializers.CharField(source="study.status")
    version = serializers.IntegerField(
        help_text="Send it back with every decision, undo and sign-off"
    )
    flags = serializers.SerializerMethodField()
    open_flags = serializers.SerializerMethodField()
    report_flagged = serializers.SerializerMethodField()
    final_text = serializers.CharField()
    sentences = SentenceReviewSerializer(many=True)
    signoffs = SignOffSerializer(many=True)

    def get_flags(self, state) -> int:
        return len(state.flags)

    def get_open_flags(self, state) -> int:
        return len(state.open_flags)

    def get_report_flagged(self, state) -> bool:
        return state.report_warning is not None


class DecisionRequestSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        choices=[Decision.Action.ACCEPT, Decision.Action.REJECT, Decision.Action.EDIT]
    )
    sentence = serializers.IntegerField(min_value=0, help_text=SENTENCE_INDEX)
    detection = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="A flag of the sentence (or a source of it); default: its flag",
    )
    text = serializers.CharField(
        required=False, allow_blank=True, help_text="The edited sentence (action edit)"
    )
    version = serializers.IntegerField(
        min_value=0, max_value=services.MAX_VERSION,
        help_text="The review version the decision was made on",
    )


class VersionRequestSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=0, max_value=services.MAX_VERSION)


class SignRequestSerializer(VersionRequestSerializer):
    """Signing is an attestation: confirm it and re-enter the password."""

    password = serializers.CharField(trim_whitespace=False, write_only=True)
    attested = serializers.BooleanField()


CONFLICT = OpenApiResponse(
    inline_serializer(
        "Conflict",
        {"detail": serializers.CharField(), "current_version": serializers.IntegerField()},
    ),
    description="The review changed since the given version; nothing was saved.",
)
# A refusal says why: {"detail": "..."}, or for a malformed body {"field": ["..."]}.
REFUSED = OpenApiResponse(
    inline_serializer("Refused", {"detail": serializers.CharField(required=False)}),
    description="The action cannot be done (see detail, or each field's messages).")


# --- views -----------------------------------------------------------------------------------


def _state(pk: int) -> selectors.ReviewState:
    try:
        return selectors.review_state(study_with_everything(pk))
    except Study.DoesNotExist:
        raise Http404("No such study") from None


def _failure(exc: services.ReviewError) -> Response:
    if isinstance(exc, services.StaleVersion):
        return Response(
            {"detail": exc.message, "current_version": exc.current}, status=status.HTTP_409_CONFLICT
        )
    return Response({"detail": exc.message}, status=status.HTTP_400_BAD_REQUEST)


def _decision_made(outcome: services.Outcome) -> Response:
    return Response(
        {"decision": DecisionSerializer(outcome.decision).data, "version": outcome.version},
        status=status.HTTP_201_CREATED,
    )


class ReviewBase(APIView):
    permission_classes = [ReadOrRadiologist]


class ReviewView(ReviewBase):
    @extend_schema(
        responses=ReviewSerializer, summary="The review of a study: sentences, flags, version"
    )
    def get(self, request, pk: int):
        state = _state(pk)
        record_study_view(request.user, state.study, via="api")
        return Response(ReviewSerializer(state).data)


class SentencesView(ReviewBase):
    @extend_schema(
        responses=SentenceReviewSerializer(many=True),
        summary="Sentences with their flags and decisions",
    )
    def get(self, request, pk: int):
        return Response(SentenceReviewSerializer(_state(pk).sentences, many=True).data)


class DetectionsView(ReviewBase):
    @extend_schema(
        responses=DetectionSerializer(many=True), summary="Every detection on the audited report"
    )
    def get(self, request, pk: int):
        state = _state(pk)
        detections = list(state.report.detections.all()) if state.report else []
        flag_ids = {d.pk for d in selectors.flags_of(detections)}
        return Response(
            DetectionSerializer(detections, many=True, context={"flag_ids": flag_ids}).data
        )


class DecisionsView(ReviewBase):
    @extend_schema(
        responses=DecisionSerializer(many=True),
        summary="All decisions, oldest first (undos included)",
    )
    def get(self, request, pk: int):
        study = get_object_or_404(Study, pk=pk)
        decisions = study.decisions.select_related("user", "sentence").order_by("id")
        return Response(DecisionSerializer(decisions, many=True).data)

    @extend_schema(
        request=DecisionRequestSerializer, summary="Accept or reject a flag, or edit a sentence",
        responses={201: inline_serializer("DecisionMade", {"decision": DecisionSerializer(),
                                                           "version": serializers.IntegerField()}),
                   400: REFUSED, 409: CONFLICT},
    )
    def post(self, request, pk: int):
        study = get_object_or_404(Study, pk=pk)
        body = DecisionRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            outcome = services.decide(
                study,
                request.user,
                action=data["action"],
                sentence_index=data["sentence"],
                version=data["version"],
                detection_id=data.get("detection"),
                text=data.get("text"),
            )
        except services.ReviewError as exc:
            return _failure(exc)
        return _decision_made(outcome)


class UndoView(ReviewBase):
    @extend_schema(
        request=VersionRequestSerializer,
        summary="Undo the study's latest live decision (appends an undo)",
        responses={
            201: inline_serializer(
                "Undone", {"decision": DecisionSerializer(), "version": serializers.IntegerField()}
            ),
            400: REFUSED,
            409: CONFLICT,
        },
    )
    def post(self, request, pk: int):
        study = get_object_or_404(Study, pk=pk)
        body = VersionRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            outcome = services.undo_last(
                study, request.user, version=body.validated_data["version"]
            )
        except services.ReviewError as exc:
            return _failure(exc)
        return _decision_made(outcome)


class SignOffsView(ReviewBase):
    @extend_schema(responses=SignOffSerializer(many=True), summary="Signed versions, oldest first")
    def get(self, request, pk: int):
        study = get_object_or_404(Study, pk=pk)
        signoffs = study.signoffs.select_related("signer", "report").order_by("version")
        return Response(SignOffSerializer(signoffs, many=True).data)

    @extend_schema(
        request=SignRequestSerializer, summary="Sign the final report as the next version",
        responses={201: SignOffSerializer, 400: REFUSED, 409: CONFLICT},
    )
    def post(self, request, pk: int):
        study = get_object_or_404(Study, pk=pk)
        body = SignRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            outcome = services.sign(study, request.user, version=data["version"],
                                    password=data["password"], attested=data["attested"])
        except services.ReviewError as exc:
            return _failure(exc)
        return Response(SignOffSerializer(outcome.signoff).data, status=status.HTTP_201_CREATED)


def _signoff(pk: int, version: int) -> SignOff:
    try:
        return selectors.signoff_for(Study(pk=pk), version)
    except SignOff.DoesNotExist:
        raise Http404("No such signed version") from None


class SignOffView(ReviewBase):
    @extend_schema(responses=SignOffSerializer, summary="One signed version")
    def get(self, request, pk: int, version: int):
        return Response(SignOffSerializer(_signoff(pk, version)).data)


class AnyMediaRenderer(BaseRenderer):
    """Lets a client ask for the export's own media type; error bodies still come as JSON."""

    media_type = "*/*"
    format = "export"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return JSONRenderer().render(data, "application/json", renderer_context)


class ExportView(ReviewBase):
    renderer_classes = [JSONRenderer, AnyMediaRenderer]

    @extend_schema(
        summary="A signed version as txt, fhir (FHIR R4 DiagnosticReport JSON) "
                "or sr (DICOM Comprehensive SR)",
        responses={
            (200, "text/plain"): OpenApiTypes.STR,
            (200, "application/fhir+json"): OpenApiTypes.OBJECT,
            (200, "application/dicom"): OpenApiTypes.BINARY,
            404: REFUSED,
            409: OpenApiResponse(
                REFUSED.response, description="The signed text fails its hash check"
            ),
        },
    )
    def get(self, request, pk: int, version: int, fmt: str):
        signoff = _signoff(pk, version)
        if fmt not in BUILDERS:
            raise Http404("No such export format")
        try:
            content, filename, media_type = services.export(signoff, fmt, request.user)
        except services.ReviewError as exc:
            return Response({"detail": exc.message}, status=status.HTTP_409_CONFLICT)
        response = HttpResponse(content, content_type=media_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class DetectorSerializer(serializers.Serializer):
    name = serializers.CharField(help_text='The value of a detection\'s "detector"')
    label = serializers.CharField(help_text="The detector as a radiologist reads it")
    description = serializers.CharField()
    stage = serializers.CharField(help_text="The pipeline stage that runs it")
    roles = serializers.ListField(child=serializers.CharField(), help_text="Model roles it uses")
    scope = serializers.CharField(help_text="general, or single-purpose: its silence is no vote "
                                            "on other errors in the system combination")
    evidence_schema = serializers.SerializerMethodField(help_text="JSON schema of its evidence")

    def get_evidence_schema(self, spec) -> dict:
        return evidence_schema(spec)


class DetectorsView(APIView):
    permission_classes = [ReadOrRadiologist]

    @extend_schema(responses=DetectorSerializer(many=True),
                   summary="The detectors, their labels and the schema of their evidence")
    def get(self, request):
        return Response(DetectorSerializer(list(DETECTORS.values()), many=True).data)


urlpatterns = [
    path("detectors/", DetectorsView.as_view(), name="api-detectors"),
    path("studies/<int:pk>/review/", ReviewView.as_view(), name="api-review"),
    path("studies/<int:pk>/sentences/", SentencesView.as_view(), name="api-review-sentences"),
    path("studies/<int:pk>/detections/", DetectionsView.as_view(), name="api-review-detections"),
    path("studies/<int:pk>/decisions/", DecisionsView.as_view(), name="api-review-decisions"),
    path("studies/<int:pk>/decisions/undo/", UndoView.as_view(), name="api-review-undo"),
    path("studies/<int:pk>/signoffs/", SignOffsView.as_view(), name="api-review-signoffs"),
    path(
        "studies/<int:pk>/signoffs/<int:version>/", SignOffView.as_view(), name="api-review-signoff"
    ),
    path(
        "studies/<int:pk>/signoffs/<int:version>/export/<str:fmt>/",
        ExportView.as_view(),
        name="api-review-export",
    ),
]
