from django.apps import AppConfig

from radreview.jobs.stages import register


class CompareConfig(AppConfig):
    name = "radreview.compare"
    label = "compare"
    verbose_name = "Report comparison and drafting quality"

    def ready(self):
        from . import stage  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        register(stage.COMPARE_DRAFT)
