"""POST /api/compare/: one candidate report against one reference, its errors explained.

Any signed-in user may call it; nothing is stored. The comparison runs in the web process (the
language engine loads on the first call, a few seconds; then a pair takes milliseconds).
"""
from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from workers.compare.batch import MAX_REPORT_CHARS
from workers.compare.categories import KEYS
from workers.compare.compare import compare_reports


class PairSerializer(serializers.Serializer):
    candidate = serializers.CharField(max_length=MAX_REPORT_CHARS, allow_blank=True,
                                      trim_whitespace=False,
                                      help_text="The report to judge (a model's draft)")
    reference = serializers.CharField(max_length=MAX_REPORT_CHARS, allow_blank=True,
                                      trim_whitespace=False,
                                      help_text="The report it is judged against")


class ErrorSerializer(serializers.Serializer):
    category = serializers.ChoiceField(choices=KEYS)
    significant = serializers.BooleanField(help_text="Clinically significant (docs/compare.md)")
    candidate_sentence = serializers.CharField(allow_null=True)
    reference_sentence = serializers.CharField(allow_null=True)
    explanation = serializers.CharField()


class ComparisonSerializer(serializers.Serializer):
    score = serializers.FloatField(help_text="The number of errors: 0 says what the reference "
                                             "says")
    errors = ErrorSerializer(many=True)


class CompareView(APIView):
    @extend_schema(request=PairSerializer, responses={200: ComparisonSerializer},
                   summary="Compare a candidate report with a reference")
    def post(self, request):
        pair = PairSerializer(data=request.data)
        pair.is_valid(raise_exception=True)
        comparison = compare_reports(pair.validated_data["candidate"],
                                     pair.validated_data["reference"])
        return Response(comparison.to_dict())


urlpatterns = [path("compare/", CompareView.as_view(), name="api-compare")]
