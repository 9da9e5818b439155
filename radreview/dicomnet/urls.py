from django.urls import path

from . import views

app_name = "dicomnet"

urlpatterns = [
    path("studies/import/", views.import_from_pacs, name="import"),
    path("studies/import/retrieve/", views.import_study, name="import_study"),
    path("studies/import/<int:pk>/", views.import_job, name="import_job"),
    path("dicom/deliveries/<int:pk>/send/", views.send_sr_again, name="send_sr"),
    path("dicom/inbound/<int:pk>/queue/", views.queue_inbound, name="queue_inbound"),
]
