from django.apps import AppConfig


class SiteSetupConfig(AppConfig):
    name = "radreview.sitesetup"
    label = "sitesetup"
    verbose_name = "Site setup"
