"""The figures a calibration page shows for one set of thresholds, all from the same sentences.

For a threshold rule (one λ1 for every sentence, or a λ1 per category), over the c calibration
sentences of which t are true (factual):

* ``risk``: the risk conformal risk control controls — the share of **all** sentences that are
  true **and** flagged, L̂ = (true flagged)/c (the paper's definition);
* ``adjusted_risk``: what the selection compares with α, (true flagged + 1)/(c + 1);
* ``true_flag_rate``: the share of **true** sentences flagged, (true flagged)/t — larger than
  the risk, and what a radiologist may read α as, so it is shown beside it;
* ``sentence_flag_rate``, ``report_flag_rate`` (at λ2): what share of sentences and reports
  are flagged.

Every figure of one set comes from the same thresholds, so a page that shows a set's figures
side by side never mixes the overall λ1 with the per-category ones.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any


def figures(sentences: Sequence, threshold: Callable[[Any], int], *,
            reports: Sequence = (), lambda2: int | None = None) -> dict[str, Any]:
    """``threshold(sentence)`` is the λ1 in force for a sentence (flagged when support < λ1)."""
    c = len(sentences)
    true = sum(1 for s in sentences if s.factual)
    flagged = [s for s in sentences if s.support < threshold(s)]
    true_flagged = sum(1 for s in flagged if s.factual)
    report_rate = None
    if reports and lambda2 is not None:
        counts = [sum(1 for s in r.sentences if s.support < threshold(s)) for r in reports]
        report_rate = sum(1 for k in counts if k >= lambda2) / len(reports)
    return {
        "sentences": c, "true": true, "true_flagged": true_flagged, "flagged": len(flagged),
        "risk": float(Fraction(true_flagged, c)) if c else None,
        "adjusted_risk": float(Fraction(true_flagged + 1, c + 1)),
        "true_flag_rate": true_flagged / true if true else None,
        "sentence_flag_rate": len(flagged) / c if c else None,
        "report_flag_rate": report_rate, "lambda2": lambda2 if reports else None,
    }
