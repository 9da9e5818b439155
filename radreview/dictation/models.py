"""Reports that arrive apart from their images: from the dictation system or the RIS (HL7 v2
ORU^R01 over MLLP, a FHIR DiagnosticReport) or typed on the study page. Kept as received and
matched to a study by accession number (radreview/dictation/services.py)."""
from django.db import models


class IncomingReport(models.Model):
    class Channel(models.TextChoices):
        HL7 = "hl7", "HL7 ORU^R01"
        FHIR = "fhir", "FHIR DiagnosticReport"
        TYPED = "typed", "Typed on the study page"

    class State(models.TextChoices):
        WAITING = "waiting", "Waiting for its images"
        ATTACHED = "attached", "Attached to its study"
        UNCHANGED = "unchanged", "Same text as the study's report"
        SUPERSEDED = "superseded", "Replaced before its images arrived"

    channel = models.CharField(max_length=8, choices=Channel.choices)
    # Who sent it (MSH-3^MSH-4, a token's user) and its own id (MSH-10, the resource id): a
    # message sent again is recognised and answered without being stored twice.
    sender = models.CharField(max_length=200, blank=True)
    message_id = models.CharField(max_length=200, blank=True)
    accession_number = models.CharField(max_length=64, blank=True, db_index=True)
    patient_id = models.CharField(max_length=64, blank=True)
    result_status = models.CharField(max_length=12, blank=True)
    text = models.TextField()
    received_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=12, choices=State.choices)
    study = models.ForeignKey("studies.Study", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="incoming_reports")
    report = models.ForeignKey("studies.Report", null=True, blank=True,
                               on_delete=models.PROTECT, related_name="+")
    attached_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]
        constraints = [models.UniqueConstraint(
            fields=["channel", "sender", "message_id"], condition=~models.Q(message_id=""),
            name="incoming_report_once")]

    def __str__(self) -> str:
        return f"{self.get_channel_display()} report {self.pk} ({self.get_state_display()})"

    @property
    def source(self) -> str:
        """What the report's ``source`` says of where it came from."""
        return f"{self.channel}:{self.sender}" if self.sender else self.channel
