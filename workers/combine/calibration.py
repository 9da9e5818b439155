"""The system combination's own calibration, learnt from the radiologists' decisions.

The combined confidence of Lasko et al. is a *score*: an agreement-weighted mean in which a
detector's silence counts as a zero, so two detectors that say 0.95 and 0.60 for different
reasons can end at 0.31. It orders sentences well but is not a probability. Once radiologists
have decided enough sentences, the score is mapped to a probability of error and the display
threshold is chosen with a guarantee (docs/audit.md, "Calibrating the combination"):

* **examples**: one per reviewed sentence — its highest combined score (None when the
  combination raised nothing on it, so it can never be flagged by the score) and whether the
  radiologist judged it wrong (accepted a flag, or edited it) or right (rejected a flag, or
  signed it as written);
* **two folds by study**: the studies, in the order given, go alternately to the *fit* fold and
  the *hold-out* fold, so the sentences of one study never sit on both sides;
* **probability of error**: isotonic regression (pool-adjacent-violators) of "judged wrong" on
  the score over the fit fold — a non-decreasing step function: the share of wrong sentences
  among fit sentences with similar scores, by the rule of succession ((wrong + 1)/(n + 2), never
  0 or 1);
* **display threshold t** by conformal risk control on the hold-out fold, with RadFlag's exact
  rule (``workers.radflag.calibration.select_lambda1``): among the c hold-out sentences judged
  right, the loss of one is 1[p ≥ t] (a true sentence shown flagged); t runs over 0.01, 0.02,
  …, 1.00 and is the lowest whose adjusted risk (Σ loss + 1)/(c + 1) is at most α. The risk
  controlled is therefore the **share of true sentences flagged** — stricter than RadFlag's
  (true and flagged) / all sentences, which it bounds. When no t meets α (too few true
  sentences for α), t is None and the combination flags nothing on its score alone.

Only the fit fold shapes the probabilities and only the hold-out fold chooses t, so the
guarantee is the split-conformal one, for the site's combination settings at fitting time.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from workers.radflag.calibration import check_alpha, select_lambda1
from workers.radflag.flags import exact

#: Candidate display thresholds are multiples of 1/GRID.
GRID = 100
#: Sentences judged wrong, and judged right, that a fit needs among those the combination scored.
DEFAULT_MINIMUM = 20
#: Probability bins of the hold-out reliability table.
RELIABILITY_BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


@dataclass(frozen=True)
class Example:
    """A reviewed sentence: ``score`` its highest combined score (None: the combination raised
    nothing on it), ``error`` the radiologist's verdict, ``study`` the fold key."""

    score: float | None
    error: bool
    study: str


@dataclass(frozen=True)
class ProbabilityMap:
    """A non-decreasing step function from score to probability of error.

    Block i covers scores from ``starts[i]`` up to the next block's start; a score below the
    first start takes the first block's probability. ``counts[i]`` fit sentences made block i.
    """

    starts: tuple[float, ...]
    probabilities: tuple[float, ...]
    counts: tuple[int, ...]

    def __call__(self, score: float) -> float:
        value = self.probabilities[0]
        for start, probability in zip(self.starts, self.probabilities):
            if score < start:
                break
            value = probability
        return value

    def as_dict(self) -> dict[str, list]:
        return {"starts": list(self.starts), "probabilities": list(self.probabilities),
                "counts": list(self.counts)}

    @classmethod
    def from_dict(cls, data: dict[str, list]) -> ProbabilityMap:
        return cls(tuple(data["starts"]), tuple(data["probabilities"]), tuple(data["counts"]))


def _pool(blocks: list[list]) -> list[list]:
    """Pool adjacent violators: blocks [start, total, weight, sentences] in score order, merged
    (their totals, weights and sentences added) until the means total/weight rise strictly.
    Neighbours with equal means are pooled too: the fit is the same, and a block made of many
    sentences is what lets the rule of succession say 1/22 rather than 1/3 for 20 right ones."""
    pooled: list[list] = []
    for block in blocks:
        pooled.append(list(block))
        while len(pooled) > 1 and pooled[-2][1] * pooled[-1][2] >= pooled[-1][1] * pooled[-2][2]:
            _, total, weight, sentences = pooled.pop()
            pooled[-1][1] += total
            pooled[-1][2] += weight
            pooled[-1][3] += sentences
    return pooled


def isotonic(pairs: Sequence[tuple[float, bool]]) -> ProbabilityMap:
    """Isotonic regression of "wrong" on the score, with the rule of succession.

    Equal scores are pooled first, then adjacent violators (pool-adjacent-violators). Each
    block's share of wrong sentences becomes (wrong + 1)/(sentences + 2) — a handful of fit
    sentences never makes a probability of 0 or 1 — and a second pooling, weighted by
    sentences + 2, keeps the result non-decreasing.
    """
    if not pairs:
        raise ValueError("isotonic regression needs at least one scored sentence")
    by_score: list[list] = []  # [start, wrong, sentences, sentences]
    for score, wrong in sorted(pairs):
        if by_score and by_score[-1][0] == score:
            by_score[-1][1] += int(wrong)
            by_score[-1][2] += 1
            by_score[-1][3] += 1
        else:
            by_score.append([score, int(wrong), 1, 1])
    smoothed = _pool([[start, wrong + 1, sentences + 2, sentences]
                      for start, wrong, _, sentences in _pool(by_score)])
    return ProbabilityMap(tuple(b[0] for b in smoothed),
                          tuple(round(b[1] / b[2], 4) for b in smoothed),
                          tuple(b[3] for b in smoothed))


@dataclass(frozen=True)
class ScoreCalibration:
    """What the combine stage needs: the map, the display threshold and where they come from."""

    mapping: ProbabilityMap
    threshold: float | None
    alpha: float
    version: int | None = None
    calibration_id: int | None = None

    def probability(self, score: float) -> float:
        return self.mapping(score)

    def flags(self, score: float) -> bool:
        return self.threshold is not None and self.probability(score) >= self.threshold

    def describe(self) -> dict[str, Any]:
        """For a combined detection's evidence."""
        return {"calibration": self.calibration_id, "version": self.version, "alpha": self.alpha,
                "threshold": self.threshold}


def _support(probability: float | None) -> int:
    """A flag at probability ≥ t = (GRID + 1 − λ)/GRID is a flag at "support" E < λ with
    E = GRID − ⌊GRID·p⌋, so RadFlag's selection of λ applies unchanged. A sentence the
    combination did not score is never flagged: E = GRID + 1."""
    if probability is None:
        return GRID + 1
    return GRID - math.floor(exact(probability) * GRID)


def threshold_of(lam: int) -> float | None:
    """The probability threshold of λ (None for λ = 0, which flags nothing)."""
    return None if lam == 0 else float(Fraction(GRID + 1 - lam, GRID))


def split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    """(fit, hold-out): the studies in order of first appearance, alternately."""
    order: dict[str, int] = {}
    for example in examples:
        order.setdefault(example.study, len(order))
    fit = [e for e in examples if order[e.study] % 2 == 0]
    held = [e for e in examples if order[e.study] % 2 == 1]
    return fit, held


@dataclass(frozen=True)
class Readiness:
    """Whether the decisions so far are enough to fit, and if not, why in words."""

    wrong_scored: int
    right_scored: int
    right_held_out: int
    minimum: int
    right_held_out_needed: int

    @property
    def ready(self) -> bool:
        return (self.wrong_scored >= self.minimum and self.right_scored >= self.minimum
                and self.right_held_out >= self.right_held_out_needed)

    def reason(self) -> str:
        if self.ready:
            return "Enough decisions to fit."
        needs = []
        if self.wrong_scored < self.minimum or self.right_scored < self.minimum:
            needs.append(
                f"at least {self.minimum} sentences judged wrong and {self.minimum} judged right "
                f"among those the combination scored (now {self.wrong_scored} and "
                f"{self.right_scored})")
        if self.right_held_out < self.right_held_out_needed:
            needs.append(
                f"at least {self.right_held_out_needed} sentences judged right in the hold-out "
                f"half of the studies for α (now {self.right_held_out})")
        return "Not enough decisions yet: fitting needs " + "; and ".join(needs) + "."


def readiness(examples: Sequence[Example], alpha, minimum: int = DEFAULT_MINIMUM) -> Readiness:
    bound = check_alpha(alpha)
    _, held = split(examples)
    scored = [e for e in examples if e.score is not None]
    # 1/(c + 1) ≤ α needs c ≥ 1/α − 1 sentences judged right.
    return Readiness(sum(e.error for e in scored), sum(not e.error for e in scored),
                     sum(not e.error for e in held), minimum, math.ceil(1 / bound) - 1)


@dataclass
class CombinationFit:
    alpha: float
    threshold: float | None
    mapping: ProbabilityMap
    studies: int
    sentences: int
    wrong: int
    right: int
    #: hold-out figures at the chosen threshold (and the adjusted risk compared with α).
    held_out: dict[str, Any] = field(default_factory=dict)
    #: one row per threshold 0.05, 0.10, …: hold-out share of true / wrong sentences flagged.
    curve: list[dict] = field(default_factory=list)
    #: hold-out reliability: per probability bin, mean probability and observed share wrong.
    reliability: list[dict] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "threshold": self.threshold, "map": self.mapping.as_dict(),
                "studies": self.studies, "sentences": self.sentences, "wrong": self.wrong,
                "right": self.right, "held_out": self.held_out, "curve": self.curve,
                "reliability": self.reliability}


def _rates(held: Sequence[Example], mapping: ProbabilityMap, threshold: float | None) -> dict:
    def flagged(e: Example) -> bool:
        return threshold is not None and e.score is not None and mapping(e.score) >= threshold

    right = [e for e in held if not e.error]
    wrong = [e for e in held if e.error]
    right_flagged = sum(flagged(e) for e in right)
    wrong_flagged = sum(flagged(e) for e in wrong)
    return {
        "threshold": threshold, "sentences": len(held), "right": len(right), "wrong": len(wrong),
        "right_flagged": right_flagged, "wrong_flagged": wrong_flagged,
        "true_flag_rate": right_flagged / len(right) if right else None,
        "adjusted_risk": float(Fraction(right_flagged + 1, len(right) + 1)),
        "true_and_flagged_rate": right_flagged / len(held) if held else None,
        "error_catch_rate": wrong_flagged / len(wrong) if wrong else None,
    }


def _reliability(held: Sequence[Example], mapping: ProbabilityMap) -> list[dict]:
    rows = []
    edges = RELIABILITY_BINS
    scored = [(mapping(e.score), e.error) for e in held if e.score is not None]
    for low, high in zip(edges, edges[1:]):
        last = high == edges[-1]
        members = [(p, wrong) for p, wrong in scored if low <= p < high or (last and p == high)]
        rows.append({"from": low, "to": high, "sentences": len(members),
                     "mean_probability": (sum(p for p, _ in members) / len(members)
                                          if members else None),
                     "share_wrong": (sum(w for _, w in members) / len(members)
                                     if members else None)})
    return rows


def fit(examples: Sequence[Example], *, alpha, minimum: int = DEFAULT_MINIMUM) -> CombinationFit:
    """Fit the probability map on one half of the studies and choose t on the other half."""
    bound = check_alpha(alpha)
    ready = readiness(examples, bound, minimum)
    if not ready.ready:
        raise ValueError(ready.reason())
    fit_fold, held = split(examples)
    pairs = [(e.score, e.error) for e in fit_fold if e.score is not None]
    if not pairs:
        raise ValueError("The fit half of the studies has no sentence the combination scored.")
    mapping = isotonic(pairs)
    right = [e for e in held if not e.error]
    supports = [_support(mapping(e.score) if e.score is not None else None) for e in right]
    # λ runs over 0..GRID (not GRID + 1): the lowest threshold is 1/GRID, so a probability
    # of error below 1 % never flags a sentence.
    lam = select_lambda1(supports, [True] * len(supports), GRID - 1, bound)
    threshold = threshold_of(lam)
    curve = [_rates(held, mapping, step / 20) for step in range(1, 21)]
    return CombinationFit(
        alpha=float(bound), threshold=threshold, mapping=mapping,
        studies=len({e.study for e in examples}), sentences=len(examples),
        wrong=sum(e.error for e in examples), right=sum(not e.error for e in examples),
        held_out=_rates(held, mapping, threshold), curve=curve,
        reliability=_reliability(held, mapping))
