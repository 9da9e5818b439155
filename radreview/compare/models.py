"""Drafting quality: which model drafted a report, and its errors against the signed report.

``DraftOrigin`` is written when a model drafts a study's candidate report (the sample stage, or
an upload of a candidate made elsewhere): the model's name and version as they were then.
``DraftComparison`` is written when a study whose audited report is such a draft is signed, in
the sign-off's transaction; a worker then compares the draft with the signed text
(workers/compare) and stores the ``DraftError`` rows. A later sign-off of the same study makes
its own comparison, and only the latest counts (``current``): the signed report it compares
with is the one that stands.
"""
from django.db import models

from workers.compare.categories import BY_KEY


class DraftOrigin(models.Model):
    """The model that drafted a candidate report, recorded when the draft was made."""

    report = models.OneToOneField("studies.Report", on_delete=models.CASCADE,
                                  related_name="draft_origin")
    model_name = models.CharField(max_length=200)
    # What tells one version of the model from another: the backend's setting as the model
    # roles page shows it (kind, folder or URL, options) with a fingerprint of a local model's
    # files; "" when the draft came from elsewhere and said nothing.
    model_version = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model_name} {self.model_version}".strip()


class DraftComparison(models.Model):
    """A signed study's draft compared with its signed report."""

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for the comparison"
        DONE = "done", "Compared"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE,
                              related_name="draft_comparisons")
    signoff = models.OneToOneField("review.SignOff", on_delete=models.CASCADE,
                                   related_name="draft_comparison")
    draft = models.ForeignKey("studies.Report", on_delete=models.CASCADE, related_name="+")
    model_name = models.CharField(max_length=200)
    model_version = models.CharField(max_length=300, blank=True)
    signed_at = models.DateTimeField()
    # The Monday of the signing week in the site's time zone: the page's rows.
    week = models.DateField(db_index=True)
    # The draft was signed as it was drafted: no sentence changed, none removed.
    unchanged = models.BooleanField()
    # The study's latest sign-off: only these count on the page.
    current = models.BooleanField(default=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    errors_total = models.PositiveIntegerField(default=0)
    errors_significant = models.PositiveIntegerField(default=0)
    score = models.FloatField(null=True, blank=True)
    compared_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-signed_at", "-id"]
        indexes = [models.Index(fields=["current", "model_name", "model_version", "week"])]

    def __str__(self) -> str:
        return f"Study {self.study_id}: draft of {self.model_name} against its signed report"


class DraftError(models.Model):
    """One error of a draft against the signed report (workers/compare, six categories)."""

    comparison = models.ForeignKey(DraftComparison, on_delete=models.CASCADE,
                                   related_name="errors")
    position = models.PositiveIntegerField()
    category = models.CharField(max_length=24, db_index=True)
    significant = models.BooleanField()
    candidate_sentence = models.TextField(blank=True)
    reference_sentence = models.TextField(blank=True)
    explanation = models.TextField()

    class Meta:
        ordering = ["comparison", "position"]

    @property
    def category_label(self) -> str:
        category = BY_KEY.get(self.category)
        return category.label if category else self.category

    def __str__(self) -> str:
        return f"{self.category}: {self.explanation}"
