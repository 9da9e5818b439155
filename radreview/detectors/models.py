"""The site's system-combination settings and false-positive filter rules (docs/audit.md).

Admins edit them in the Django admin; the combine stage and the audit_reports command read
them through ``services.combination_config()``. A site that has changed nothing runs on the
defaults of ``workers.combine.config`` (seeded by the migration), its detectors folded in the
order workers.detectors declares them.
"""
import re

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from workers.combine import config as defaults
from workers.detectors import DETECTORS
from workers.types import Harm


class CombinationSettings(models.Model):
    """One row: whether to combine, the similarity needed to align, the flag threshold."""

    enabled = models.BooleanField(
        default=True, help_text="Off: the raw detections of each detector are shown instead.")
    similarity_threshold = models.FloatField(
        default=defaults.DEFAULT_SIMILARITY_THRESHOLD,
        validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)],
        help_text="Least cosine similarity of two explanations (same sentence) to merge them.")
    flag_threshold = models.FloatField(
        default=defaults.DEFAULT_FLAG_THRESHOLD,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Least combined confidence for a sentence to be flagged.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = verbose_name_plural = "combination settings"

    def __str__(self) -> str:
        return (f"Combination {'on' if self.enabled else 'off'}: flag at "
                f"{self.flag_threshold:g}, align at {self.similarity_threshold:g}")

    def save(self, *args, **kwargs):
        self.pk = 1  # one row for the site
        super().save(*args, **kwargs)

    @classmethod
    def current(cls) -> "CombinationSettings":
        return cls.objects.get_or_create(pk=1)[0]


class DetectorWeight(models.Model):
    """A detector's place in the fold order and its relative weight."""

    detector = models.CharField(max_length=40, unique=True)
    order = models.PositiveIntegerField(default=0, help_text="Folded in ascending order.")
    weight = models.FloatField(
        default=1.0, validators=[MinValueValidator(0.0)],
        help_text="Relative weight; 0 leaves the detector out of the combination.")

    class Meta:
        ordering = ["order", "detector"]

    def __str__(self) -> str:
        return f"{self.detector} (order {self.order}, weight {self.weight:g})"

    def clean(self) -> None:
        # a misspelt name would weigh nothing and say nothing
        if self.detector not in DETECTORS:
            raise ValidationError({"detector": f"No detector is named {self.detector!r}; the "
                                               f"detectors are {', '.join(DETECTORS)}."})


class FilterRule(models.Model):
    """A rule that removes a known false-positive pattern from the combined flags."""

    class Kind(models.TextChoices):
        RESTATES_SENTENCE = defaults.RESTATES_SENTENCE, "Explanation restates the sentence"
        OMISSION = defaults.OMISSION, "Explanation describes an omission"
        PATTERN = defaults.PATTERN, "Explanation matches a pattern"
        HARM_BELOW = defaults.HARM_BELOW, "Harm below a level"

    class Metric(models.TextChoices):
        JACCARD3 = defaults.JACCARD3, "Word-trigram Jaccard similarity"
        EDIT = defaults.EDIT, "Normalised edit similarity"

    name = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    enabled = models.BooleanField(default=True)
    order = models.PositiveIntegerField(default=0)
    metric = models.CharField(max_length=10, choices=Metric.choices, default=Metric.JACCARD3,
                              blank=True, help_text="Restates-the-sentence rules only.")
    threshold = models.FloatField(
        default=0.5, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Restates-the-sentence rules: similarity at or above which the flag goes.")
    pattern = models.TextField(
        blank=True, help_text="A regular expression over the explanation (pattern rules; for "
                              "omission rules, empty = the built-in omission wording).")
    harm = models.CharField(max_length=10, blank=True, default=Harm.VERY_LOW.value,
                            choices=[(h.value, h.value.capitalize()) for h in Harm],
                            help_text="Harm-below rules: flags less harmful than this go.")
    description = models.TextField(blank=True)

    class Meta:
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return self.name

    def clean(self):

        if self.kind == self.Kind.PATTERN and not self.pattern:
            raise ValidationError({"pattern": "A pattern rule needs a regular expression."})
        if self.pattern:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValidationError({"pattern": f"Not a regular expression: {exc}"}) from exc
        if self.kind == self.Kind.RESTATES_SENTENCE and not self.metric:
            raise ValidationError({"metric": "Choose how the similarity is measured."})
