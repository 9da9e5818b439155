from django.urls import path

from . import views

app_name = "modelroles"

urlpatterns = [
    path("", views.status, name="status"),
    path("<str:role>/test/", views.test_role, name="test"),
    path("probes/<int:job_pk>/", views.probe_result, name="probe"),
]
