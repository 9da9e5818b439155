from django.apps import AppConfig


class StudiesConfig(AppConfig):
    name = "radreview.studies"
    label = "studies"
