from django.apps import AppConfig
from django.conf import settings

from radreview.jobs.stages import declare
from workers.detectors import load_plugins


class DetectorsConfig(AppConfig):
    name = "radreview.detectors"
    label = "detectors"
    verbose_name = "Detectors and system combination"

    def ready(self):
        # A site's own detectors are declared in the web process and in every worker alike.
        load_plugins(settings.DETECTOR_PLUGINS)
        declare(audit="radreview.detectors.audit_stage:AUDIT",
                combine="radreview.detectors.combine_stage:COMBINE")
