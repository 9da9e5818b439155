"""The guarantee of a RadFlag flag: the calibration under which it was raised, in words."""
from __future__ import annotations

from workers.types import Detection


def _number(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def radflag_guarantee(detection: Detection) -> dict | None:
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
