"""RadFlag calibrations (versioned, never edited), which one is active, and per-study results.

A calibration is computed once from an uploaded file and kept as it was. Which calibration is
active is the latest ``Activation`` row (append-only; one with no calibration means "use the
default thresholds"), so activating one deactivates the previous and the history stays.
"""
from django.conf import settings
from django.db import models


class Immutable(models.Model):
    """Rows written once: saving an existing row or deleting one is refused."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError(f"{type(self).__name__} rows are never edited")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError(f"{type(self).__name__} rows are kept")


class Calibration(Immutable):
    """λ1 (overall and per category) and λ2 chosen by conformal risk control on one file."""

    version = models.PositiveIntegerField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL,
                            related_name="+")
    # The calibration file: its name as uploaded, where it is kept, its SHA-256.
    source_name = models.CharField(max_length=255)
    source_path = models.CharField(max_length=300, blank=True)
    source_sha256 = models.CharField(max_length=64)
    alpha = models.FloatField()
    target_report_rate = models.FloatField(null=True, blank=True)
    per_category = models.BooleanField(default=False)
    n_samples = models.PositiveIntegerField()
    n_reports = models.PositiveIntegerField()
    n_sentences = models.PositiveIntegerField()
    lambda1 = models.PositiveIntegerField()
    lambda1_by_category = models.JSONField(default=dict, blank=True)
    lambda2 = models.PositiveIntegerField(null=True, blank=True)
    risk_at_lambda1 = models.FloatField()
    adjusted_risk_at_lambda1 = models.FloatField()
    sentence_flag_rate = models.FloatField()
    report_flag_rate = models.FloatField(null=True, blank=True)
    # Everything the page shows: the curve over λ, the λ2 table, category sizes.
    result = models.JSONField(default=dict)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        return f"Calibration v{self.version} (α = {self.alpha:g}, λ1 = {self.lambda1})"


class ActivationLog(Immutable):
    """An append-only log of which calibration is in force: the latest row wins. Subclasses
    add ``calibration``, a nullable foreign key (None: no calibration)."""

    activated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.PROTECT, related_name="+")
    activated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["-id"]


class Activation(ActivationLog):
    """From now on, flag with this calibration (None: with the default thresholds)."""

    calibration = models.ForeignKey(Calibration, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="activations")

    def __str__(self) -> str:
        what = f"version {self.calibration.version}" if self.calibration else "default thresholds"
        return f"RadFlag: {what} from {self.activated_at:%Y-%m-%d %H:%M}"


class StudyRadFlag(models.Model):
    """What RadFlag concluded for a study, and with which thresholds (None: the defaults)."""

    study = models.OneToOneField("studies.Study", on_delete=models.CASCADE, related_name="radflag")
    report = models.ForeignKey("studies.Report", on_delete=models.CASCADE, related_name="+")
    calibration = models.ForeignKey(Calibration, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="studies")
    created_at = models.DateTimeField(auto_now_add=True)
    n_samples = models.PositiveIntegerField()
    lambda1 = models.PositiveIntegerField()  # for this study's n (rescaled when n differs)
    lambda2 = models.PositiveIntegerField()
    thresholds = models.JSONField(default=dict)  # Thresholds.as_dict()
    scored_sentences = models.PositiveIntegerField()
    flagged_sentences = models.PositiveIntegerField()
    report_flagged = models.BooleanField(default=False)
    # [{"index", "support", "n", "category", "lambda1", "flagged"}, ...]
    sentences = models.JSONField(default=list)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        verbose_name = "study RadFlag result"

    def __str__(self) -> str:
        return (f"Study {self.study_id}: {self.flagged_sentences} of {self.scored_sentences} "
                f"sentences flagged")


class CombinationCalibration(Immutable):
    """The system combination's score as a probability of error, and its display threshold,
    fitted on the radiologists' decisions (workers.combine.calibration)."""

    version = models.PositiveIntegerField(unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    alpha = models.FloatField()
    # None: no threshold met α, so the combination flags nothing on its score alone.
    threshold = models.FloatField(null=True, blank=True)
    studies = models.PositiveIntegerField()
    sentences = models.PositiveIntegerField()
    wrong = models.PositiveIntegerField()
    right = models.PositiveIntegerField()
    # CombinationFit.as_dict() (map, hold-out figures, curve, reliability) and the combination
    # settings it was fitted under.
    result = models.JSONField(default=dict)

    class Meta:
        ordering = ["-version"]

    def __str__(self) -> str:
        shown = f"{self.threshold:g}" if self.threshold is not None else "none"
        return f"Combination calibration v{self.version} (α = {self.alpha:g}, threshold {shown})"


class CombinationActivation(ActivationLog):
    """From now on, the combination flags with this calibration (None: its raw score and the
    site's flag threshold)."""

    calibration = models.ForeignKey(CombinationCalibration, null=True, blank=True,
                                    on_delete=models.PROTECT, related_name="activations")

    def __str__(self) -> str:
        what = f"version {self.calibration.version}" if self.calibration else "the raw score"
        return f"Combination: {what} from {self.activated_at:%Y-%m-%d %H:%M}"
