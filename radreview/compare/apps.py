from django.apps import AppConfig

from radreview.jobs.stages import declare


class CompareConfig(AppConfig):
    name = "radreview.compare"
    label = "compare"
    verbose_name = "Report comparison and drafting quality"

    def ready(self):
        declare(compare_draft="radreview.compare.stage:COMPARE_DRAFT")
