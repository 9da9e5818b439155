"""What the DICOM side keeps: instances received and waiting to become a study, and signed
reports (DICOM SR) on their way to the PACS."""
from django.db import models


class InboundStudy(models.Model):
    """Instances of one StudyInstanceUID received over DICOM, waiting for the quiet period.

    The receiver writes each instance to the inbox folder and a row below; once no instance
    has arrived for the quiet period (or someone asks), the batch goes through the upload
    service like a browser upload and becomes a study, or is refused with the reason.
    """

    class State(models.TextChoices):
        RECEIVING = "receiving", "Receiving"
        INGESTING = "ingesting", "Creating the study"
        DONE = "done", "Study created"
        REFUSED = "refused", "Refused"

    study_instance_uid = models.CharField(max_length=64, db_index=True)
    calling_ae = models.CharField(max_length=16, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.RECEIVING,
                             db_index=True)
    first_received_at = models.DateTimeField(auto_now_add=True)
    last_received_at = models.DateTimeField()
    # Someone asked to queue it now instead of waiting for the quiet period.
    trigger_requested = models.BooleanField(default=False)
    study = models.ForeignKey("studies.Study", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    error = models.TextField(blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-last_received_at", "-id"]
        verbose_name_plural = "inbound studies"
        constraints = [
            # One open batch per study: later instances join it.
            models.UniqueConstraint(fields=["study_instance_uid"],
                                    condition=models.Q(state="receiving"),
                                    name="one_receiving_batch_per_study_uid"),
        ]

    def __str__(self) -> str:
        return f"Inbound study {self.pk} ({self.state})"


class InboundInstance(models.Model):
    """One received SOP instance, stored under MEDIA_ROOT until its batch is ingested."""

    batch = models.ForeignKey(InboundStudy, on_delete=models.CASCADE, related_name="instances")
    sop_instance_uid = models.CharField(max_length=64)
    path = models.CharField(max_length=300)  # relative to MEDIA_ROOT
    size_bytes = models.PositiveBigIntegerField()
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["batch", "id"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "sop_instance_uid"],
                                    name="unique_instance_per_batch"),
        ]


class SrDelivery(models.Model):
    """A signed version's DICOM SR on its way to a PACS: an outbox row the workers retry.

    The row is written in the sign-off's transaction, so a signed report always has its
    delivery recorded; a send that fails leaves the row pending with the error and the time of
    the next attempt, and it stays so until the destination accepts it.
    """

    class State(models.TextChoices):
        PENDING = "pending", "Waiting to be sent"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"

    signoff = models.ForeignKey("review.SignOff", on_delete=models.PROTECT,
                                related_name="deliveries")
    study = models.ForeignKey("studies.Study", on_delete=models.PROTECT,
                              related_name="sr_deliveries")
    # The destination as configured at sign-off time (retries go where the first try went).
    ae_title = models.CharField(max_length=16)
    host = models.CharField(max_length=255)
    port = models.PositiveIntegerField()
    sop_instance_uid = models.CharField(max_length=64)
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING,
                             db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # A sender holds the row until then; a crashed sender's claim simply runs out.
    claimed_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "-created_at", "-id"]
        verbose_name_plural = "SR deliveries"

    def __str__(self) -> str:
        return f"SR of study {self.study_id} v{self.signoff.version} to {self.destination}"

    @property
    def destination(self) -> str:
        return f"{self.ae_title}@{self.host}:{self.port}"
