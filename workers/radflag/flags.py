"""Sentence and report flags from support scores, and the detections they become.

A sentence is flagged when its support E is below λ1 (its category's λ1 when the thresholds
have per-category values); a report is flagged when it has at least λ2 flagged sentences.

Thresholds are integers for a number of samples n. A study whose n differs from the n the
thresholds were set for gets λ1 rescaled to keep the same share: "E < λ1 of n_cal" becomes
"E/n < λ1/n_cal", i.e. λ1' = ceil(λ1 · n / n_cal) (exact rational arithmetic). The
conformal guarantee holds only for the n it was calibrated on; the evidence says when λ1 was
rescaled.

Confidence that a flagged sentence is wrong: (n − E + 1) / (n + 2), the rule-of-succession
estimate of the share of samples that do not support it — 0.92 for 0 of 10, 0.75 for 2 of 10;
never 0 or 1, since n samples are only n draws. Harm: the highest ``harm_of`` of the
sentence's findings; a sentence with no finding is "very low" (it states nothing a patient's
care depends on, but it can still be wrong).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from workers.nlp import harm_of
from workers.types import Detection, Harm

from .support import SentenceSupport

DETECTOR = "radflag"


def exact(value: float | int | Fraction | str) -> Fraction:
    """A number as the decimal it is written as (0.3 is 3/10, not the float nearest to it)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def rescale(lambda1: int, n_from: int, n_to: int) -> int:
    """λ1 set for n_from samples, for a study with n_to samples (same share of support)."""
    if n_from == n_to:
        return lambda1
    return math.ceil(Fraction(lambda1 * n_to, n_from))


def default_lambda1(min_support: float, n: int) -> int:
    """λ1 for n samples when a sentence needs at least ``min_support`` of them (a share)."""
    return math.ceil(exact(min_support) * n)


@dataclass(frozen=True)
class Thresholds:
    """λ1 (overall and per category) and λ2, for ``n_samples`` samples.

    ``calibration_id`` / ``calibration_version`` name the calibration they come from; both are
    None for the default thresholds, as is ``alpha``, the risk level the calibration
    controls. ``lambda2_default``: the calibration chose no λ2, so the default λ2 is used.
    """

    lambda1: int
    lambda2: int
    n_samples: int
    lambda1_by_category: dict[str, int] = field(default_factory=dict)
    calibration_id: int | None = None
    calibration_version: int | None = None
    lambda2_default: bool = False
    alpha: float | None = None

    @property
    def source(self) -> str:
        return "calibration" if self.calibration_id is not None else "default"

    def lambda1_for(self, category: str, n: int) -> int:
        return rescale(self.lambda1_by_category.get(category, self.lambda1), self.n_samples, n)

    def describe(self, n: int) -> str:
        """One line for the evidence: where the thresholds come from."""
        if self.calibration_id is None:
            text = (f"No active calibration: default thresholds (λ1 = {self.lambda1_for('', n)} "
                    f"of {n} samples, λ2 = {self.lambda2}) from the site settings.")
        else:
            text = f"Thresholds from calibration version {self.calibration_version}."
            if self.lambda2_default:
                text += f" It chose no λ2, so the default λ2 = {self.lambda2} applies."
        if n != self.n_samples:
            text += (f" λ1 was set for {self.n_samples} samples and is rescaled to this study's "
                     f"{n}; the calibrated error guarantee holds only for {self.n_samples}.")
        return text

    def as_dict(self) -> dict:
        return {"lambda1": self.lambda1, "lambda2": self.lambda2, "n_samples": self.n_samples,
                "lambda1_by_category": dict(self.lambda1_by_category),
                "calibration": self.calibration_id, "calibration_version": self.calibration_version,
                "lambda2_default": self.lambda2_default, "source": self.source,
                "alpha": self.alpha}


@dataclass(frozen=True)
class SentenceInfo:
    """What the flags need to know about a sentence of the audited report."""

    index: int
    text: str
    start: int
    end: int
    section: str = "findings"
    category: str = ""
    findings: tuple[dict, ...] = ()


@dataclass(frozen=True)
class SentenceFlag:
    index: int
    support: int
    n: int
    category: str
    lambda1: int
    flagged: bool

    def as_dict(self) -> dict:
        return {"index": self.index, "support": self.support, "n": self.n,
                "category": self.category, "lambda1": self.lambda1, "flagged": self.flagged}


@dataclass(frozen=True)
class FlagOutcome:
    sentences: list[SentenceFlag]
    flagged_sentences: int
    report_flagged: bool
    lambda2: int
    detections: list[Detection]


def confidence_of(support: int, n: int) -> float:
    return round((n - support + 1) / (n + 2), 4)


def harm_of_sentence(findings: Sequence[dict]) -> Harm:

    harms = [harm_of(f["observation"], f.get("status") or "present")
             for f in findings if f.get("observation")]
    return max(harms, key=lambda harm: harm.rank) if harms else Harm.VERY_LOW


def explanation_of(support: int, n: int, lambda1: int) -> str:
    return (f"The generator's own samples rarely say this: supported by {support} of {n} "
            f"samples, where at least {lambda1} are needed.")


def flag_report(sentences: Sequence[SentenceInfo], supports: Sequence[SentenceSupport],
                thresholds: Thresholds, *, prompt_version: str | None = None,
                model: str | None = None) -> FlagOutcome:
    """Flag the scored sentences, flag the report, and make one detection per flagged sentence.

    Every detection's evidence follows docs/detections.md (``radflag``) and carries the
    report-level outcome (``report_flagged``, ``flagged_sentences``, ``lambda2``).
    """
    by_index = {s.index: s for s in sentences}
    flags: list[SentenceFlag] = []
    for scored in supports:
        info = by_index[scored.index]
        category = info.category or "Other"
        lambda1 = thresholds.lambda1_for(category, scored.n)
        flags.append(SentenceFlag(scored.index, scored.support, scored.n, category, lambda1,
                                  scored.support < lambda1))
    flagged = [f for f in flags if f.flagged]
    report_flagged = len(flagged) >= thresholds.lambda2
    detections = []
    support_of = {s.index: s for s in supports}
    for flag in flagged:
        info, scored = by_index[flag.index], support_of[flag.index]
        evidence = {
            "support": flag.support, "n": flag.n, "complete": scored.complete,
            "partial": scored.partial, "lambda1": flag.lambda1, "category": flag.category,
            "calibration": thresholds.calibration_id,
            "calibration_version": thresholds.calibration_version, "alpha": thresholds.alpha,
            "thresholds": thresholds.source, "note": thresholds.describe(flag.n),
            "lambda2": thresholds.lambda2, "flagged_sentences": len(flagged),
            "report_flagged": report_flagged,
            "verdicts": [v.to_dict() for v in scored.verdicts],
        }
        detections.append(Detection(
            sentence_index=flag.index, start=info.start, end=info.end, detector=DETECTOR,
            explanation=explanation_of(flag.support, flag.n, flag.lambda1),
            harm=harm_of_sentence(info.findings), confidence=confidence_of(flag.support, flag.n),
            evidence=evidence, prompt_version=prompt_version, model=model,
        ))
    return FlagOutcome(flags, len(flagged), report_flagged, thresholds.lambda2, detections)
