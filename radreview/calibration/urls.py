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
    path("combination/fit/", views.combination_fit, name="combination_fit"),
    path("combination/<int:pk>/", views.combination_detail, name="combination_detail"),
    path("combination/<int:pk>/activate/", views.combination_activate,
         name="combination_activate"),
    path("combination/raw/", views.combination_raw, name="combination_raw"),
]
