from django.urls import path

from . import views

app_name = "sitesetup"

urlpatterns = [
    path("", views.checklist, name="checklist"),
    path("echo/", views.echo_pacs, name="echo"),
]
