from django.apps import AppConfig

from radreview.jobs.stages import register


class CalibrationConfig(AppConfig):
    name = "radreview.calibration"
    label = "calibration"
    verbose_name = "RadFlag calibration"

    def ready(self):
        from . import radflag_stage, sample_stage, stage  # noqa: PLC0415 - stage modules import models: only once apps are loaded

        # RadFlag's two study stages, and the site job that calibrates its thresholds.
        register(sample_stage.SAMPLE, radflag_stage.RADFLAG, stage.CALIBRATE)
