from django.apps import AppConfig


class DictationConfig(AppConfig):
    name = "radreview.dictation"
    label = "dictation"
    verbose_name = "Reports from dictation"
