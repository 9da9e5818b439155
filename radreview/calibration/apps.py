from django.apps import AppConfig

from radreview.jobs.stages import declare


class CalibrationConfig(AppConfig):
    name = "radreview.calibration"
    label = "calibration"
    verbose_name = "RadFlag calibration"

    def ready(self):
        # RadFlag's two study stages, and the site job that calibrates its thresholds.
        declare(sample="radreview.calibration.sample_stage:SAMPLE",
                radflag="radreview.calibration.radflag_stage:RADFLAG",
                calibrate="radreview.calibration.stage:CALIBRATE")
