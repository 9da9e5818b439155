from django.apps import AppConfig

from radreview.jobs.stages import declare


class StudiesConfig(AppConfig):
    name = "radreview.studies"
    label = "studies"

    def ready(self):
        declare(ingest="radreview.studies.ingest_stage:INGEST",
                parse_report="radreview.studies.report_stage:PARSE_REPORT")
