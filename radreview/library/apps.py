from django.apps import AppConfig


class LibraryConfig(AppConfig):
    name = "radreview.library"
    label = "library"
