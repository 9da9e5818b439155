from django.apps import AppConfig


class DicomNetConfig(AppConfig):
    name = "radreview.dicomnet"
    label = "dicomnet"
    verbose_name = "DICOM network"
