from django.conf import settings
from django.db import models


class Study(models.Model):
    """One chest X-ray examination: its images and the reports written about it."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        PROCESSING = "processing", "Processing"
        # Images without a report where none can be drafted: the report comes from dictation
        # (HL7, FHIR) or is typed on the study page (radreview/dictation).
        AWAITING_REPORT = "awaiting_report", "Awaiting report"
        READY = "ready", "Ready for review"
        FAILED = "failed", "Failed"
        SIGNED = "signed", "Signed"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="uploaded_studies"
    )
    status = models.CharField(
        max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    # The comparative-language detector needs to know whether a prior exam exists to compare with.
    has_prior = models.BooleanField(default=False)

    class Source(models.TextChoices):
        UPLOAD = "upload", "Upload"
        DICOM = "dicom", "Received over DICOM"
        PACS = "pacs", "Imported from the PACS"

    # How the study reached RadReview, and from whom (the calling AE title of a DICOM sender).
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.UPLOAD)
    source_detail = models.CharField(max_length=64, blank=True)

    # Identifiers and descriptors from the DICOM headers, shown to reviewers and never logged.
    study_instance_uid = models.CharField(max_length=64, blank=True, db_index=True)
    accession_number = models.CharField(max_length=64, blank=True)
    patient_id = models.CharField(max_length=64, blank=True)
    patient_name = models.CharField(max_length=200, blank=True)
    patient_sex = models.CharField(max_length=16, blank=True)
    patient_age = models.CharField(max_length=16, blank=True)
    patient_birth_date = models.DateField(null=True, blank=True)
    study_date = models.DateField(null=True, blank=True)
    description = models.CharField(max_length=200, blank=True)

    # Bumped by every review decision; a decision made on an older version is refused.
    review_version = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return f"Study {self.pk}"

    @property
    def audited_report(self):
        """The report under audit: the uploaded one if any, else the generated candidate."""
        return audited_among(self.reports.all())


def audited_among(reports) -> "Report | None":
    """Which of a study's reports is under audit: the uploaded one if any, else the candidate.
    A study has at most one of each: an earlier version of its report is SUPERSEDED."""
    kinds = {report.kind: report for report in reports}
    return kinds.get(Report.Kind.UPLOADED) or kinds.get(Report.Kind.CANDIDATE)


def original_upload_path(image: "Image", filename: str) -> str:
    return f"studies/{image.study_id}/originals/{filename}"


class Image(models.Model):
    """One image of a study: the uploaded file, its preview and the tags a reviewer needs."""

    class Kind(models.TextChoices):
        DICOM = "dicom", "DICOM"
        PNG = "png", "PNG"
        JPEG = "jpeg", "JPEG"

    class View(models.TextChoices):
        PA = "PA", "PA"
        AP = "AP", "AP"
        LATERAL = "LATERAL", "Lateral"
        OTHER = "OTHER", "Other"
        UNKNOWN = "UNKNOWN", "Unknown"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="images")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    original = models.FileField(upload_to=original_upload_path, max_length=300)
    original_name = models.CharField(max_length=255)
    size_bytes = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64)
    view = models.CharField(max_length=10, choices=View.choices, default=View.UNKNOWN)
    # Indexed: a re-sent instance is found by it and never makes a second study.
    sop_instance_uid = models.CharField(max_length=64, blank=True, db_index=True)
    series_instance_uid = models.CharField(max_length=64, blank=True)
    rows = models.PositiveIntegerField(null=True, blank=True)
    columns = models.PositiveIntegerField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # Written by the ingest stage: relative paths under MEDIA_ROOT.
    preview = models.CharField(max_length=300, blank=True)
    thumbnail = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["study", "position", "id"]

    def __str__(self) -> str:
        return f"Study {self.study_id}, image {self.position + 1} ({self.get_view_display()})"


class Report(models.Model):
    """A report text about a study: uploaded, generated (candidate and samples) or signed."""

    class Kind(models.TextChoices):
        UPLOADED = "uploaded", "Uploaded"
        # An uploaded report that a later version (a final after a preliminary) replaced.
        SUPERSEDED = "superseded", "Earlier version"
        CANDIDATE = "candidate", "Candidate"
        SAMPLE = "sample", "Sample"
        DRAFT = "draft", "Alternative draft"
        FINAL = "final", "Final"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="reports")
    kind = models.CharField(max_length=12, choices=Kind.choices, db_index=True)
    text = models.TextField()
    # Where the text came from: "upload", "external generator", or the generating model's name.
    source = models.CharField(max_length=200, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    sample_index = models.PositiveIntegerField(null=True, blank=True)
    # An uploaded report's version (1, 2, ... as corrected reports arrive) and its result
    # status as the dictation system sent it.
    version = models.PositiveIntegerField(default=1)

    class ResultStatus(models.TextChoices):
        NONE = "", "Not given"
        PRELIMINARY = "preliminary", "Preliminary"
        FINAL = "final", "Final"
        CORRECTED = "corrected", "Corrected"

    result_status = models.CharField(max_length=12, choices=ResultStatus.choices, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )

    class Meta:
        ordering = ["study", "kind", "sample_index", "id"]

    def __str__(self) -> str:
        if self.kind == self.Kind.SAMPLE and self.sample_index is not None:
            return f"Study {self.study_id}, sample {self.sample_index + 1}"
        return f"Study {self.study_id}, {self.get_kind_display().lower()} report"


class Sentence(models.Model):
    """A sentence of a report, with its character span in the report text and its section."""

    report = models.ForeignKey(Report, on_delete=models.CASCADE, related_name="sentences")
    index = models.PositiveIntegerField()
    text = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    section = models.CharField(max_length=20)
    # The rule engine's findings for this sentence (observation, status, laterality, ...).
    findings = models.JSONField(default=list, blank=True)
    category = models.CharField(max_length=24, blank=True)
    # RadFlag: how many of the n sampled reports entail this sentence, and each sample's verdict.
    support = models.PositiveIntegerField(null=True, blank=True)
    support_n = models.PositiveIntegerField(null=True, blank=True)
    support_verdicts = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["report", "index"]
        constraints = [
            models.UniqueConstraint(fields=["report", "index"], name="unique_sentence_index"),
        ]

    # Rows in lists (the admin) quote at most this much of the sentence.
    QUOTED_CHARS = 60

    @property
    def number(self) -> int:
        """The sentence's number as people count it (from 1), everywhere it is shown."""
        return self.index + 1

    def __str__(self) -> str:
        text = self.text if len(self.text) <= self.QUOTED_CHARS else (
            self.text[:self.QUOTED_CHARS - 1].rstrip() + "…")
        return f"Study {self.report.study_id}, sentence {self.number}: '{text}'"


class UploadKey(models.Model):
    """The idempotency key an upload came with (the API's ``Idempotency-Key`` header, the
    upload page's hidden token): a retry with the same key gets the studies of the first."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=128)
    created_at = models.DateTimeField(auto_now_add=True)
    studies = models.ManyToManyField(Study, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="unique_upload_key_per_user"),
        ]

    def __str__(self) -> str:
        return f"Upload key of user {self.user_id}"


class Presence(models.Model):
    """A radiologist who has the study's page open: the page records it when it opens and at
    each of its presence polls, and the worklist's "Reading" column shows who has it open now
    (seen within ``services.presence.PRESENCE_SECONDS``). A closed page stops polling, so it
    drops out without a goodbye that a crash or a lost network would never send."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="one_presence_per_user"),
        ]

    def __str__(self) -> str:
        return f"User {self.user_id} on study {self.study_id}"
