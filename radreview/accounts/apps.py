from django.apps import AppConfig

from radreview.security import checks  # noqa: F401 - registers the deployment checks


class AccountsConfig(AppConfig):
    name = "radreview.accounts"
    label = "accounts"

    def ready(self):
        from . import signals  # noqa: F401, PLC0415 - connects the receivers once apps are loaded
