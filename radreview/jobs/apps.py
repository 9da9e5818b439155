from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "radreview.jobs"
    label = "jobs"
