from django.apps import AppConfig


class CompareConfig(AppConfig):
    name = "radreview.compare"
    label = "compare"
    verbose_name = "Report comparison and drafting quality"
