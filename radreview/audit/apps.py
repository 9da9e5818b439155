from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "radreview.audit"
    label = "audit"
