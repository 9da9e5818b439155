from django.conf import settings
from django.db import models


class AuditEvent(models.Model):
    """Something that happened to a study or the site: who, when, what. Never edited or deleted."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="audit_events",
    )
    action = models.CharField(max_length=64, db_index=True)
    study = models.ForeignKey(
        "studies.Study", null=True, blank=True, on_delete=models.PROTECT, related_name="audit_events"
    )
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.action}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("audit events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("audit events are append-only")
