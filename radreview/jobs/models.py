from django.db import models


class Job(models.Model):
    """A unit of background work that the workers claim, run, and finish or fail.

    Most jobs are one pipeline stage of one study. Site jobs (``study`` is empty) do work for
    the whole site, such as importing a reference library or running a calibration; their
    inputs are in ``params``.

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

    study = models.ForeignKey(
        "studies.Study", null=True, blank=True, on_delete=models.CASCADE, related_name="jobs"
    )
    stage = models.CharField(max_length=32)
    order = models.PositiveIntegerField(default=0)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)  # what a site job reports back
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        "accounts.User", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    queue = models.CharField(max_length=16, default="cpu")
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.PENDING, db_index=True
    )
    progress = models.FloatField(default=0.0)
    progress_note = models.CharField(max_length=200, blank=True)
    error = models.TextField(blank=True)  # shown on the study page
    error_detail = models.TextField(blank=True)  # the traceback, for admins
    attempts = models.PositiveIntegerField(default=0)
    # Sends of this job's message that the broker refused in a row (radreview/jobs/reconcile.py
    # tries again, and fails the job after JOB_MAX_SEND_FAILURES).
    send_failures = models.PositiveIntegerField(default=0)
    claim_token = models.UUIDField(null=True, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["study_id", "order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["study", "stage"], condition=models.Q(study__isnull=False),
                name="unique_stage_per_study",
            ),
        ]

    def __str__(self) -> str:
        subject = f"study {self.study_id}" if self.study_id else "the site"
        return f"{self.stage} of {subject} ({self.state})"

    @property
    def is_finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)
