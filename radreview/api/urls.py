"""Everything under /api/. Each app contributes its own routes from its ``api`` module."""
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from radreview.accounts import tokens

urlpatterns = [
    path("auth/token/", tokens.ObtainTokenView.as_view(), name="api-token"),
    path("auth/logout/", tokens.RevokeTokenView.as_view(), name="api-logout"),
    path("auth/logoutall/", tokens.RevokeAllTokensView.as_view(), name="api-logout-all"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("radreview.studies.api")),
    path("", include("radreview.review.api")),
    path("dicomweb/", include("radreview.dicomnet.dicomweb.urls")),
    path("", include("radreview.dictation.api")),
    path("", include("radreview.compare.api")),
]
