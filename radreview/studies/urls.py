from django.urls import path

from . import views

app_name = "studies"

urlpatterns = [
    path("", views.worklist, name="worklist"),
    path("studies/upload/", views.upload, name="upload"),
    path("studies/<int:pk>/", views.detail, name="detail"),
    path("studies/<int:pk>/jobs/", views.jobs_panel, name="jobs"),
    path("studies/<int:pk>/presence/", views.still_open, name="presence"),
    path("studies/<int:pk>/jobs/<int:job_pk>/retry/", views.retry_job, name="retry_job"),
    path(
        "studies/<int:pk>/images/<int:image_pk>/<str:variant>.png", views.image_file, name="image"
    ),
]
