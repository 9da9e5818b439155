from django.urls import path

from . import views

app_name = "audit"

urlpatterns = [
    path("audit/", views.site_trail, name="site"),
    path("audit/export.csv", views.export_csv, name="export"),
    path("studies/<int:pk>/audit/", views.study_trail, name="study"),
]
