"""What the database knows about the media folder: whose it is, what each upload was about to
write, and what the last check of the folder found (docs/operations.md, "Media files")."""
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class Deployment(models.Model):
    """This deployment's identity: one row, whose id is also written in a marker file at the
    media root. A process whose database and media folder name different deployments refuses
    to start (radreview/media/identity.py)."""

    SINGLETON = 1

    id = models.PositiveSmallIntegerField(primary_key=True, default=SINGLETON)
    identity = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"Deployment {self.identity}"


class UploadIntent(models.Model):
    """The files an upload is about to write, committed before the first byte is written.

    The study's own transaction marks it done. One left pending (the process died between
    writing its files and committing its rows) is the only proof the sweep accepts that files
    were abandoned: it removes exactly the files listed here, in the upload's own folder.
    """

    class State(models.TextChoices):
        PENDING = "pending", "Writing"
        DONE = "done", "Stored with its study"
        CLEANED = "cleaned", "Abandoned, files removed"

    token = models.UUIDField(unique=True, default=uuid.uuid4, editable=False)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=16)
    # The upload's own folder (relative to MEDIA_ROOT) and the files it writes there.
    folder = models.CharField(max_length=300)
    files = models.JSONField(default=list)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who removed the files of an abandoned upload ("upload": its own failure handling,
    # "sweep": a starting worker) and how many there were.
    cleaned_by = models.CharField(max_length=10, blank=True)
    removed_files = models.PositiveIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["state", "created_at"])]

    def __str__(self) -> str:
        return f"Upload {self.token} ({self.get_state_display().lower()})"


class MediaCheck(models.Model):
    """One look at the media folder against the database (radreview/media/inventory.py)."""

    checked_at = models.DateTimeField(default=timezone.now, db_index=True)
    files_seen = models.PositiveIntegerField()
    # Originals that no image row and no unfinished upload names: kept and reported.
    unreferenced_files = models.PositiveIntegerField()
    # Image rows whose file is not there, and the studies they belong to.
    missing_files = models.PositiveIntegerField()
    studies_missing_files = models.PositiveIntegerField()

    class Meta:
        ordering = ["-checked_at", "-id"]

    def __str__(self) -> str:
        return f"Media check {self.checked_at:%Y-%m-%d %H:%M}"
