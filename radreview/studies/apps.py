from django.apps import AppConfig

from radreview.jobs.stages import register


class StudiesConfig(AppConfig):
    name = "radreview.studies"
    label = "studies"

    def ready(self):
        from . import ingest_stage, report_stage  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        register(ingest_stage.INGEST, report_stage.PARSE_REPORT)
