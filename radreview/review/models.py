from django.conf import settings
from django.db import models

from workers.types import Harm


class Detection(models.Model):
    """A claim that a sentence of a report may be wrong (see workers.types.Detection).

    Each detector's own detections are kept (``detector`` names it); the system combination
    adds detections with ``detector == "combined"`` that point at the ones they merge.
    """

    HARM_CHOICES = [(harm.value, harm.value.capitalize()) for harm in Harm]
    COMBINED = "combined"

    report = models.ForeignKey(
        "studies.Report", on_delete=models.CASCADE, related_name="detections"
    )
    sentence = models.ForeignKey(
        "studies.Sentence",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="detections",
    )
    sentence_index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    detector = models.CharField(max_length=40, db_index=True)
    explanation = models.TextField()
    harm = models.CharField(max_length=10, choices=HARM_CHOICES)
    confidence = models.FloatField()
    evidence = models.JSONField(default=dict, blank=True)
    suggestion = models.TextField(null=True, blank=True)
    # Whether this detection is shown to the radiologist as a flag.
    flagged = models.BooleanField(default=True)
    sources = models.ManyToManyField(
        "self", symmetrical=False, blank=True, related_name="merged_into"
    )
    prompt_version = models.CharField(max_length=60, blank=True)
    model_name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["report", "sentence_index", "-confidence", "id"]

    @property
    def harm_level(self) -> Harm:
        return Harm(self.harm)

    def __str__(self) -> str:
        shown = "flag" if self.flagged else "not shown as a flag"
        return (f"Study {self.report.study_id}, sentence {self.sentence_index + 1}: "
                f"{self.detector} detection ({shown})")


class Decision(models.Model):
    """A radiologist's decision on a sentence or a flag. Append-only: undo is a new decision."""

    class Action(models.TextChoices):
        ACCEPT = "accept", "Accept flag"
        REJECT = "reject", "Reject flag"
        EDIT = "edit", "Edit sentence"
        UNDO = "undo", "Undo"

    study = models.ForeignKey("studies.Study", on_delete=models.PROTECT, related_name="decisions")
    sentence = models.ForeignKey(
        "studies.Sentence",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="decisions",
    )
    detection = models.ForeignKey(
        Detection, null=True, blank=True, on_delete=models.PROTECT, related_name="decisions"
    )
    action = models.CharField(max_length=8, choices=Action.choices)
    before_text = models.TextField(blank=True)
    after_text = models.TextField(blank=True)
    undoes = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="undone_by"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="decisions"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The study's review version this decision was made against (optimistic concurrency).
    study_version = models.PositiveIntegerField()

    class Meta:
        ordering = ["study", "created_at", "id"]
        indexes = [
            # The latest live decisions of a study, or of a sentence, without reading the rest.
            models.Index(fields=["study", "-id"], name="decision_study_latest"),
            models.Index(fields=["sentence", "-id"], name="decision_sentence_latest"),
        ]
        constraints = [
            # An undo always names the decision it undoes; nothing else may.
            models.CheckConstraint(
                condition=(models.Q(action="undo", undoes__isnull=False)
                           | (~models.Q(action="undo") & models.Q(undoes__isnull=True))),
                name="undo_names_its_target",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display()} #{self.pk} on study {self.study_id}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("review decisions are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("review decisions are append-only")


class SignOff(models.Model):
    """One signed version of a study's final report. Never edited or deleted.

    The text itself is a ``studies.Report`` of kind ``final``; this row says who signed it,
    when, which decisions it reflects, and the SHA-256 of the text, which every export checks.
    """

    study = models.ForeignKey("studies.Study", on_delete=models.PROTECT, related_name="signoffs")
    version = models.PositiveIntegerField()
    report = models.OneToOneField(
        "studies.Report", on_delete=models.PROTECT, related_name="signoff"
    )
    signer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="signoffs"
    )
    signed_at = models.DateTimeField(auto_now_add=True)
    # The effective decisions (ids, ascending) the text was derived from.
    decision_ids = models.JSONField(default=list)
    sha256 = models.CharField(max_length=64)
    # The final text by section, for the structured exports: [{"name", "title", "text"}, ...].
    sections = models.JSONField(default=list)
    # The study's review version the signer saw.
    study_version = models.PositiveIntegerField()
    # The attestation the signer confirmed (with their password), and who they were then:
    # the exports name the signer as signed, even if the account is renamed later.
    attestation = models.TextField(blank=True)
    signer_name = models.CharField(max_length=200, blank=True)
    signer_role = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["study", "version"]
        constraints = [
            models.UniqueConstraint(fields=["study", "version"], name="unique_signoff_version"),
        ]

    def __str__(self) -> str:
        return f"Study {self.study_id} signed version {self.version}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("signed reports are immutable")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("signed reports are immutable")


class SentenceState(models.Model):
    """A sentence's current review state, kept in the transaction of every decision on it.

    Derived data: the append-only ``Decision`` rows stay the source of truth, and
    ``review.state.replay`` rebuilds these rows from them (the tests check that the two always
    agree). Kept so that a decision, and the review page, cost the same on a study with 300
    earlier decisions as on a fresh one, instead of replaying the whole history each time.
    """

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE,
                              related_name="sentence_states")
    sentence = models.OneToOneField("studies.Sentence", on_delete=models.CASCADE,
                                    related_name="review_state")
    # The effective decision: the latest that is neither an undo nor undone; None: the
    # sentence reads as the report had it.
    decision = models.ForeignKey(Decision, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    # How many decisions name this sentence (undos included): the size of its history.
    decision_count = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"Review state of sentence {self.sentence_id} of study {self.study_id}"
