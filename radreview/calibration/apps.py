from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    name = "radreview.calibration"
    label = "calibration"
    verbose_name = "RadFlag calibration"
