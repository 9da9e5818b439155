"""Calibrated flags: which detectors' flags carry a guarantee, and what that guarantee says.

A detector is *calibrated* when its flag threshold was chosen by conformal risk control on the
site's own data: RadFlag flagging with an active calibration (λ1 of that calibration). Such a
flag is a claim made under a stated error rate, so the system combination never hides it: it
may add flags, order and explain them, and only an admin's explicit false-positive rule that
matches the calibrated detection itself removes one (docs/audit.md).

Which detectors are calibrated is one field of their spec in the detector registry
(``DetectorSpec.guarantee``: the function that reads the guarantee from a detection's evidence).
"""
from __future__ import annotations

from workers.detectors import DETECTORS, Guarantee
from workers.types import Detection


def guarantee_of(detection: Detection) -> Guarantee | None:
    """The guarantee under which ``detection`` was flagged, or None when it has none."""
    spec = DETECTORS.get(detection.detector)
    guarantee = spec.guarantee(detection) if spec and spec.guarantee else None
    return {"detector": detection.detector, **guarantee} if guarantee is not None else None
