"""URLs of the image memory (radreview/library/image_views.py), namespace "images"."""
from django.urls import path

from . import image_views as views

app_name = "images"

urlpatterns = [
    path("site/library/", views.library_page, name="library"),
    path("site/library/import/", views.start_import, name="import"),
    path("site/library/rebuild/", views.start_rebuild, name="rebuild"),
    path("site/library/jobs/<int:job_pk>/", views.job_panel, name="job"),
    path("library/images/<int:pk>/thumbnail.png", views.reference_thumbnail,
         name="reference_thumbnail"),
    path("library/images/<int:pk>/<slug:preset>.png", views.reference_render,
         name="reference_render"),
    path("library/studies/<int:pk>/", views.reference_study, name="reference_study"),
    path("images/studies/<int:study_pk>/<int:image_pk>/<slug:preset>.png",
         views.study_image_render, name="study_render"),
]
