from django.urls import path

from . import views

STUDY = "studies/<str:study>"
SERIES = f"{STUDY}/series/<str:series>"
INSTANCE = f"{SERIES}/instances/<str:instance>"

urlpatterns = [
    path("studies", views.SearchStudies.as_view(), name="dicomweb-studies"),
    path(f"{STUDY}/series", views.SearchSeries.as_view()),
    path(f"{STUDY}/instances", views.SearchInstances.as_view()),
    path(f"{SERIES}/instances", views.SearchInstances.as_view()),
    path(STUDY, views.Retrieve.as_view(), name="dicomweb-study"),
    path(f"{STUDY}/metadata", views.Metadata.as_view()),
    path(SERIES, views.Retrieve.as_view()),
    path(f"{SERIES}/metadata", views.Metadata.as_view()),
    path(INSTANCE, views.Retrieve.as_view()),
    path(f"{INSTANCE}/metadata", views.Metadata.as_view()),
    path(f"{INSTANCE}/frames/<str:frames>", views.Frames.as_view()),
]
