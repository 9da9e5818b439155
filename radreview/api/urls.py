"""Everything under /api/. Each app contributes its own routes from its ``api`` module."""
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.throttling import ScopedRateThrottle


class ThrottledObtainAuthToken(ObtainAuthToken):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "login"


urlpatterns = [
    path("auth/token/", ThrottledObtainAuthToken.as_view(), name="api-token"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("radreview.studies.api")),
    path("", include("radreview.review.api")),
    path("dicomweb/", include("radreview.dicomnet.dicomweb.urls")),
]
