from django.urls import path

from . import views

app_name = "calibration"

urlpatterns = [
    path("", views.index, name="index"),
    path("run/", views.run, name="start"),
    path("runs/<int:job_pk>/", views.run_status, name="run"),
    path("<int:pk>/", views.detail, name="detail"),
    path("<int:pk>/activate/", views.activate, name="activate"),
    path("defaults/", views.use_defaults, name="defaults"),
    path("reviewed.jsonl", views.export, name="export"),
]
