from django.conf import settings
from django.db import models

# Actions whose detail named a sentence by its 0-based index under "sentence" (see shown_detail).
LEGACY_SENTENCE_INDEX = ("review_decision", "review_undo")


class AuditEvent(models.Model):
    """Something that happened to a study or the site: who, when, what. Never edited or deleted."""

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
        related_name="audit_events",
    )
    action = models.CharField(max_length=64, db_index=True)
    study = models.ForeignKey(
        "studies.Study",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="audit_events",
    )
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.action}"

    @property
    def shown_detail(self) -> dict:
        """The detail as the trail and its CSV show it. Sentences are numbered from 1, as on
        the review page; review events written before that named the 0-based index as
        "sentence", which is shown as the number it stands for."""
        detail = self.detail if isinstance(self.detail, dict) else {"value": self.detail}
        if self.action in LEGACY_SENTENCE_INDEX and isinstance(detail.get("sentence"), int):
            detail = {("sentence_number" if key == "sentence" else key):
                      (value + 1 if key == "sentence" else value) for key, value in detail.items()}
        return detail

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("audit events are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("audit events are append-only")
