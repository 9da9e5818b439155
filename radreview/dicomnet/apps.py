from django.apps import AppConfig

from radreview.jobs.stages import declare


class DicomNetConfig(AppConfig):
    name = "radreview.dicomnet"
    label = "dicomnet"
    verbose_name = "DICOM network"

    def ready(self):
        declare(pacs_import="radreview.dicomnet.pacs_import:PACS_IMPORT")
