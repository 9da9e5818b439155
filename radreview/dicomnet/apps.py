from django.apps import AppConfig

from radreview.jobs.stages import register


class DicomNetConfig(AppConfig):
    name = "radreview.dicomnet"
    label = "dicomnet"
    verbose_name = "DICOM network"

    def ready(self):
        from . import pacs_import  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        register(pacs_import.PACS_IMPORT)
