from django.apps import AppConfig


class MediaConfig(AppConfig):
    name = "radreview.media"
    label = "media"
    verbose_name = "Media files"
