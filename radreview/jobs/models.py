from django.db import models


class Job(models.Model):
    """One pipeline stage of one study: the unit the workers claim, run, and finish or fail.

    The job row, not the broker message, is the source of truth: a message may be lost (the
    filesystem transport deletes it when a worker fetches it) or delivered twice, so workers
    claim a job with a conditional update and finish it only if their claim still holds.
    """

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for an earlier stage"
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="jobs")
    stage = models.CharField(max_length=32)
    order = models.PositiveIntegerField()
    queue = models.CharField(max_length=16, default="cpu")
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING, db_index=True)
    progress = models.FloatField(default=0.0)
    progress_note = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)  # shown on the study page
    error_detail = models.TextField(blank=True)  # the traceback, for admins
    attempts = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study", "order"]
        constraints = [
            models.UniqueConstraint(fields=["study", "stage"], name="unique_stage_per_study"),
        ]

    def __str__(self) -> str:
        return f"{self.stage} of study {self.study_id} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)
