"""Studies over the API: upload, list, and read with job states and sentences."""
from django.urls import include, path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

from radreview.audit.services import record_study_view
from radreview.jobs.models import Job

from . import selectors
from .models import Image, Report, Sentence, Study
from .services.upload import StorageFull, UploadRejected, UploadRequest, create_studies_once
from .upload_limits import OVERSIZE_ATTRIBUTE

IDEMPOTENCY_HEADER = "Idempotency-Key"


class JobSerializer(serializers.ModelSerializer):
    class Meta:
        model = Job
        fields = ["stage", "state", "progress", "progress_note", "error", "attempts",
                  "started_at", "finished_at"]


class ImageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Image
        fields = ["id", "kind", "view", "original_name", "rows", "columns", "sop_instance_uid",
                  "series_instance_uid"]


class SentenceSerializer(serializers.ModelSerializer):
    class Meta:
        model = Sentence
        fields = [
            "index",
            "text",
            "start",
            "end",
            "section",
            "category",
            "findings",
            "support",
            "support_n",
        ]


class ReportSerializer(serializers.ModelSerializer):
    sentences = SentenceSerializer(many=True, read_only=True)

    class Meta:
        model = Report
        fields = [
            "id",
            "kind",
            "text",
            "source",
            "temperature",
            "sample_index",
            "created_at",
            "sentences",
        ]


class StudySummarySerializer(serializers.ModelSerializer):
    jobs = JobSerializer(many=True, read_only=True)

    class Meta:
        model = Study
        fields = [
            "id",
            "status",
            "created_at",
            "description",
            "study_instance_uid",
            "has_prior",
            "jobs",
        ]


class StudyDetailSerializer(StudySummarySerializer):
    images = ImageSerializer(many=True, read_only=True)
    reports = ReportSerializer(many=True, read_only=True)

    class Meta(StudySummarySerializer.Meta):
        fields = StudySummarySerializer.Meta.fields + [
            "accession_number", "patient_id", "patient_name", "patient_sex", "patient_age",
            "study_date", "images", "reports",
        ]


class UploadSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=serializers.FileField(allow_empty_file=True), required=False, default=list
    )
    report_text = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    has_prior = serializers.BooleanField(required=False, default=False)
    # A candidate and its samples made by a generator outside RadReview (docs/radflag.md):
    # the samples as repeated ``samples`` fields, or pasted JSON (``samples_text``), or a file.
    candidate_text = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    samples = serializers.ListField(
        child=serializers.CharField(allow_blank=True, trim_whitespace=False),
        required=False,
        default=list,
    )
    samples_text = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    samples_file = serializers.FileField(
        required=False, allow_null=True, default=None, allow_empty_file=True
    )
    candidate_temperature = serializers.FloatField(required=False, allow_null=True, default=None)
    sample_temperature = serializers.FloatField(required=False, allow_null=True, default=None)
    generator_name = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=200
    )


class StudyViewSet(mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                   viewsets.GenericViewSet):
    """Create a study by upload (multipart: ``files``, ``report_text``, ``has_prior``; or a
    ``candidate_text`` with ``samples`` made elsewhere), list, read."""

    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):
        if self.action == "retrieve":
            return Study.objects.prefetch_related("images", "reports__sentences", "jobs")
        return selectors.studies_for_worklist()

    def get_serializer_class(self):
        if self.action == "create":
            return UploadSerializer
        return StudyDetailSerializer if self.action == "retrieve" else StudySummarySerializer

    def retrieve(self, request, *args, **kwargs):
        study = self.get_object()
        record_study_view(request.user, study, via="api")
        return Response(self.get_serializer(study).data)

    @extend_schema(parameters=[OpenApiParameter(
        IDEMPOTENCY_HEADER, str, OpenApiParameter.HEADER, required=False,
        description="Any unique string (1-128 visible ASCII characters, e.g. a UUID) naming this "
                    "upload: a retry with the same key answers 200 with the first upload's "
                    "studies and the header Idempotency-Replayed: true, creating nothing.")])
    def create(self, request, *args, **kwargs):
        upload = UploadSerializer(data=request.data)  # parsing the body runs the size limits
        refused = getattr(request._request, OVERSIZE_ATTRIBUTE, None)
        if refused:
            raise ValidationError({"detail": refused})
        upload.is_valid(raise_exception=True)
        try:
            studies, replayed = create_studies_once(
                user=request.user, request=UploadRequest(**upload.validated_data),
                key=request.headers.get(IDEMPOTENCY_HEADER, ""))
        except StorageFull as exc:
            return Response({"detail": exc.message}, status=status.HTTP_507_INSUFFICIENT_STORAGE)
        except UploadRejected as exc:
            raise ValidationError({"detail": exc.message}) from None
        body = StudySummarySerializer(studies, many=True).data
        if replayed:  # a retry of an upload already made: its studies, nothing new
            return Response({"studies": body}, status=status.HTTP_200_OK,
                            headers={"Idempotency-Replayed": "true"})
        return Response({"studies": body}, status=status.HTTP_201_CREATED)


router = DefaultRouter()
router.register("studies", StudyViewSet, basename="study")

urlpatterns = [path("", include(router.urls))]
