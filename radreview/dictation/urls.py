from django.urls import path

from . import views

app_name = "dictation"

urlpatterns = [
    path("studies/<int:pk>/report/", views.typed_report, name="typed"),
]
