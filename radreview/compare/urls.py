from django.urls import path

from . import views

app_name = "compare"

urlpatterns = [
    path("", views.index, name="index"),
    path("studies/", views.studies, name="studies"),
    path("export.csv", views.export_csv, name="export"),
    path("comparisons/<int:pk>/retry/", views.retry, name="retry"),
]
