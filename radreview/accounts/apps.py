from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "radreview.accounts"
    label = "accounts"

    def ready(self):
        from . import signals  # noqa: F401, PLC0415 - connects the receivers once apps are loaded
