from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "radreview.accounts"
    label = "accounts"
