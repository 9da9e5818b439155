from django.apps import AppConfig
from django.conf import settings

from radreview.jobs.stages import register
from workers.detectors import load_plugins


class DetectorsConfig(AppConfig):
    name = "radreview.detectors"
    label = "detectors"
    verbose_name = "Detectors and system combination"

    def ready(self):
        # A site's own detectors are declared in the web process and in every worker alike.
        load_plugins(settings.DETECTOR_PLUGINS)
        from . import audit_stage, combine_stage  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        register(audit_stage.AUDIT, combine_stage.COMBINE)
