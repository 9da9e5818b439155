from django.apps import AppConfig


class DetectorsConfig(AppConfig):
    name = "radreview.detectors"
    label = "detectors"
    verbose_name = "Detectors and system combination"
