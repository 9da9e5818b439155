from django.apps import AppConfig
from django.conf import settings

from workers.detectors import load_plugins


class DetectorsConfig(AppConfig):
    name = "radreview.detectors"
    label = "detectors"
    verbose_name = "Detectors and system combination"

    def ready(self):
        # A site's own detectors are declared in the web process and in every worker alike.
        load_plugins(settings.DETECTOR_PLUGINS)
