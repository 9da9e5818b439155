from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "radreview.review"
    label = "review"
