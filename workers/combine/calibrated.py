"""Calibrated flags: which detectors' flags carry a guarantee, and what that guarantee says.

A detector is *calibrated* when its flag threshold was chosen by conformal risk control on the
site's own data: RadFlag flagging with an active calibration (λ1 of that calibration). Such a
flag is a claim made under a stated error rate, so the system combination never hides it: it
may add flags, order and explain them, and only an admin's explicit false-positive rule that
matches the calibrated detection itself removes one (docs/audit.md).

``GUARANTEES`` maps a detector to the function that reads a guarantee from its detection's
evidence. The detector registry (workers/detectors) will own this property, one field on each
detector's spec; until it does, this mapping is the one place that says it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from workers.types import Detection

Guarantee = dict[str, Any]


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def radflag_guarantee(detection: Detection) -> Guarantee | None:
    """RadFlag's flag under an active calibration (not under the default thresholds)."""
    evidence = detection.evidence if isinstance(detection.evidence, dict) else {}
    if evidence.get("thresholds") != "calibration" or evidence.get("calibration") is None:
        return None
    lambda1, n, alpha = evidence.get("lambda1"), evidence.get("n"), evidence.get("alpha")
    version = evidence.get("calibration_version")
    text = f"flagged at λ1 = {lambda1} of {n}, calibration v{version}"
    if alpha is not None:
        text += f", α = {_number(alpha)}"
    return {"detector": detection.detector, "calibration": evidence.get("calibration"),
            "version": version, "alpha": alpha, "lambda1": lambda1, "n": n,
            "support": evidence.get("support"), "category": evidence.get("category"),
            "text": text}


GUARANTEES: dict[str, Callable[[Detection], Guarantee | None]] = {
    "radflag": radflag_guarantee,
}


def guarantee_of(detection: Detection) -> Guarantee | None:
    """The guarantee under which ``detection`` was flagged, or None when it has none."""
    reader = GUARANTEES.get(detection.detector)
    return reader(detection) if reader else None

