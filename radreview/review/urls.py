from django.urls import path

from . import views

app_name = "review"

urlpatterns = [
    path("studies/<int:pk>/review/decide/", views.decide, name="decide"),
    path("studies/<int:pk>/review/undo/", views.undo, name="undo"),
    path("studies/<int:pk>/review/sign/", views.sign, name="sign"),
    path("studies/<int:pk>/review/poll/", views.poll, name="poll"),
    path("studies/<int:pk>/signed/<int:version>/", views.signed_version, name="signed"),
    path("studies/<int:pk>/signed/<int:version>/export/<str:fmt>/", views.export, name="export"),
]
