"""One confidence per flag, explained: what the side panel and the API say about a flag's figure.

* **The figure**, one per flag: the chance the sentence is wrong — the combination's score read
  through the site's calibration (workers/combine/calibration.py) once there is one, else
  through the calibration shipped from the bundled benchmarks (workers/combine/benchmark.py),
  each labelled with what it was calibrated on. A score that no calibration reads (a detector's
  own, with the combination switched off) is *called* a score, and the panel says why.
* **Each member's own figure** beside it, and **why the combined one differs**: the fold's
  steps in words (agreement is a weighted mean; a detector that examined the sentence and raised
  nothing counts as a zero and pulls the score down).
* **Harm**: the highest member harm, naming the member that set it.
* **Guarantees**: a flag raised by a calibrated detector says under which calibration
  ("flagged at λ1 = 6 of 10, calibration v3, α = 0.1"); a site rule that removed such a flag,
  or that did not apply to it, is named.

Everything is read from the stored detections (their evidence), so the page needs no query.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from workers.combine.calibrated import guarantee_of
from workers.types import Harm

from .labels import label_of, short_label
from .models import Detection


@dataclass(frozen=True)
class MemberFigure:
    detector: str
    label: str
    confidence: float
    harm: str


@dataclass
class Figures:
    """``kind`` "probability" or "score"; ``value`` in [0, 1]."""

    kind: str
    value: float
    score: float
    source: str
    why_score: str
    members: list[MemberFigure]
    reasons: list[str]
    harm: str
    harm_set_by: str
    guarantees: list[str] = field(default_factory=list)
    flagged_because: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def is_probability(self) -> bool:
        return self.kind == "probability"

    @property
    def name(self) -> str:
        return "chance this sentence is wrong" if self.is_probability else "score"

    @property
    def shown(self) -> str:
        """The figure as the page writes it: a percentage only when it is a probability."""
        return f"{round(self.value * 100)}%" if self.is_probability else f"{self.value:.2f}"


def _evidence(row: Detection) -> dict:
    return row.evidence if isinstance(row.evidence, dict) else {}


def figure_of(row: Detection) -> float:
    """A flag row's figure: its calibrated probability when it has one, else its score."""
    probability = _evidence(row).get("probability")
    return probability if probability is not None else row.confidence


def _pct(value: float) -> str:
    return f"{round(value * 100)}%"


def step_words(step: dict) -> str | None:
    """One step of the fold (workers.combine.fold._step) in a radiologist's words."""
    who, after = short_label(step.get("detector", "")), step.get("after", 0.0)
    share = 1 - step.get("w", 0.0)  # the new detector's share of the vote on this sentence
    event = step.get("event")
    if event == "first":
        return f"{who} raised it first, at {after:.2f}."
    if event == "alone":
        return (f"{who} raised it ({step.get('own', 0):.2f}) after detectors that examined the "
                f"sentence found nothing; their silence holds {_pct(1 - share)} of the vote, so "
                f"it enters at {after:.2f}.")
    if event == "agreed":
        return (f"{who} agrees ({step.get('own', 0):.2f}; explanations "
                f"{step.get('similarity', 0):.2f} similar): the weighted mean with "
                f"{step.get('before', 0):.2f} is {after:.2f}.")
    if event == "silent":
        return (f"{who} examined the sentence and raised nothing: its silence counts as 0 with "
                f"{_pct(share)} of the vote, so {step.get('before', 0):.2f} becomes {after:.2f}.")
    if event == "no_part":
        return f"{who} takes no part in the combination (weight 0): it adds nothing to the score."
    return None


def _why_score() -> str:
    minimum = settings.COMBINATION_CALIBRATION_MINIMUM
    return ("This is a score, not a probability: the combination is not calibrated yet. An "
            "admin calibrates it on the Calibration page from the radiologists' decisions once "
            f"at least {minimum} of the sentences it scored were judged wrong (flag accepted or "
            f"sentence edited) and {minimum} right (flag rejected, or signed as written).")


def _site_calibration_note() -> str:
    minimum = settings.COMBINATION_CALIBRATION_MINIMUM
    return ("Once the radiologists here have judged at least "
            f"{minimum} flagged sentences wrong and {minimum} right, an admin calibrates this "
            "figure on the site's own decisions (Calibration page).")


def _guarantee_words(guarantee: dict) -> str:
    return f"{short_label(guarantee.get('detector', ''))}: {guarantee.get('text', '')}"


def _combined_parts(row: Detection, figures: Figures) -> None:
    evidence = _evidence(row)
    calibration = evidence.get("score_calibration")
    benchmark = evidence.get("benchmark_calibration")
    if evidence.get("probability") is not None and calibration:
        figures.source = (f"calibrated on this site's decisions (combination calibration "
                          f"v{calibration.get('version')}, α = {calibration.get('alpha'):g}); "
                          f"the combined score {row.confidence:.2f} read as a probability of "
                          "error")
    elif evidence.get("probability") is not None and benchmark:
        figures.source = (f"calibrated on the benchmarks shipped with RadReview "
                          f"({benchmark.get('sentences', 0):,} sentences of chest X-ray "
                          "reports), not yet on this site's decisions; the combined score "
                          f"{row.confidence:.2f} read as a probability of error")
        figures.notes.append(_site_calibration_note())
    else:
        figures.source = "the system combination's score"
        figures.why_score = _why_score()
    steps = [words for step in evidence.get("steps") or [] if (words := step_words(step))]
    figures.reasons = steps or [
        "The combined figure is a weighted mean of its members' confidences in which each "
        "detector that examined the sentence and raised nothing counts as 0."]
    for reason in evidence.get("flagged_by") or []:
        if reason == "score":
            figures.flagged_because.append(
                f"its score {row.confidence:.2f} reaches the site's flag threshold "
                f"{evidence.get('threshold', 0):g}")
        elif reason == "combination" and calibration:
            figures.flagged_because.append(
                f"its probability of error {_pct(evidence['probability'])} reaches the "
                f"calibrated display threshold {_pct(calibration.get('threshold') or 0)}")
        else:
            figures.flagged_because.append(
                f"{short_label(reason)}'s calibrated flag, shown whatever the combination scores")
    figures.guarantees += [_guarantee_words(g) for g in evidence.get("calibrated_flags") or []]
    if evidence.get("rule_not_applied"):
        kept = ", ".join(short_label(g.get("detector", ""))
                         for g in evidence.get("calibrated_flags") or [])
        figures.notes.append(
            f"The site rule “{evidence['rule_not_applied']}” matched the combination's "
            f"explanation but not {kept}'s calibrated flag, which stands.")
    figures.notes += removed_notes([row])


def figures_of(rows: list[Detection], members: list[Detection]) -> Figures:
    """The figures of a flag made of flag ``rows`` (combined or raw) and their ``members``."""
    primary = max(rows, key=lambda row: (figure_of(row), -row.id))
    top = max(members or rows, key=lambda d: (Harm.parse(d.harm).rank, d.confidence))
    figures = Figures(
        kind="probability" if _evidence(primary).get("probability") is not None else "score",
        value=figure_of(primary), score=primary.confidence, source="", why_score="",
        members=[MemberFigure(m.detector, label_of(m.detector), m.confidence, m.harm)
                 for m in members],
        reasons=[], harm=top.harm, harm_set_by=label_of(top.detector))
    if primary.detector == Detection.COMBINED:
        _combined_parts(primary, figures)
        for row in rows:
            if row is not primary:
                figures.guarantees += [_guarantee_words(g)
                                       for g in _evidence(row).get("calibrated_flags") or []]
        return figures
    figures.source = f"{short_label(primary.detector)}'s own confidence"
    figures.why_score = ("This is the detector's own score, not a calibrated probability: the "
                         "system combination has not combined this report (switched off, or "
                         "not run yet).")
    figures.reasons = ["Shown as the detector raised it."]
    for row in rows:
        guarantee = guarantee_of(row)  # reads .detector and .evidence
        if guarantee is not None:
            figures.guarantees.append(_guarantee_words(guarantee))
    return figures


def removed_notes(rows: list[Detection]) -> list[str]:
    """Calibrated flags that a site rule removed, named with the rule."""
    notes = []
    for row in rows:
        for removed in _evidence(row).get("calibrated_removed") or []:
            notes.append(f"{short_label(removed.get('detector', ''))} flagged this sentence "
                         f"({removed.get('text', '')}); the site rule "
                         f"“{removed.get('removed_by')}” removed the flag.")
        rule = _evidence(row).get("filtered_by")
        if rule and not row.flagged and not _evidence(row).get("calibrated_removed"):
            notes.append(f"The site rule “{rule}” matched the combination's detection on "
                         "this sentence, so it is not shown as a flag.")
    return notes
