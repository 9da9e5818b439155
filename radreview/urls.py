from django.contrib import admin
from django.urls import include, path

from radreview.accounts.views import admin_login
from radreview.outages.views import health

urlpatterns = [
    path("", include("radreview.studies.urls")),
    path("", include("radreview.review.urls")),
    path("", include("radreview.audit.urls")),
    path("", include("radreview.library.image_urls")),
    path("", include("radreview.dicomnet.urls")),
    path("", include("radreview.dictation.urls")),
    path("site/setup/", include("radreview.sitesetup.urls")),
    path("accounts/", include("radreview.accounts.urls")),
    path("site/models/", include("radreview.modelroles.urls")),
    path("site/calibration/", include("radreview.calibration.urls")),
    path("site/drafting/", include("radreview.compare.urls")),
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("api/", include("radreview.api.urls")),
    path("health/", health, name="health"),
]
