"""The site's reviewed studies as a pre-scored calibration file: learning from the radiologists.

Each sentence of a study's audited report that RadFlag scored (its support is known) and that
has a label from the review (decisions.py: a rejected flag marks it true, an accepted flag or
an edit false, a signature true for the undecided rest) becomes a calibration sentence with its
support, its category and that label. Each sentence carries its number in the report, counted
from 1 as on the review page.

A calibration file needs one number of samples n: by default the most common n among the
reviewed studies; studies with another n are left out and counted. An empty file says why
(``ReviewedExport.why_empty``).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from workers.radflag.calibration import CATEGORIES

from . import decisions


@dataclass
class ReviewedExport:
    records: list[dict] = field(default_factory=list)
    n_samples: int | None = None
    #: studies with a decision or a signature
    studies_reviewed: int = 0
    #: reviewed studies RadFlag did not score (no samples)
    without_support: int = 0
    #: reviewed studies whose scored sentences have no label yet (decided elsewhere, not signed)
    without_labels: int = 0
    #: studies left out because they have another number of samples, by that number
    other_n: dict[int, int] = field(default_factory=dict)

    @property
    def sentences(self) -> int:
        return sum(len(record["sentences"]) for record in self.records)

    @property
    def left_out_other_n(self) -> int:
        return sum(self.other_n.values())

    @property
    def left_out(self) -> int:
        return self.without_support + self.without_labels + self.left_out_other_n

    def left_out_words(self) -> str:
        """The studies left out and why, in words ("" when none was)."""
        parts = []
        if self.without_support:
            parts.append(f"{self.without_support} without RadFlag support (no samples)")
        if self.without_labels:
            parts.append(f"{self.without_labels} whose scored sentences have no decision yet "
                         "and that are not signed")
        for n, count in sorted(self.other_n.items()):
            parts.append(f"{count} with {n} samples instead of {self.n_samples}")
        return "; ".join(parts)

    def why_empty(self) -> str | None:
        """Why the file has no line, or None when it has some."""
        if self.records:
            return None
        if not self.studies_reviewed:
            return ("No study has been reviewed yet: a study counts once a radiologist has "
                    "decided on one of its sentences or signed it.")
        return (f"None of the {self.studies_reviewed} reviewed studies can be exported; left "
                f"out: {self.left_out_words()}.")

    def summary(self) -> str:
        if not self.records:
            return self.why_empty() or ""
        text = (f"{len(self.records)} reviewed studies, {self.sentences} sentences, "
                f"n = {self.n_samples} samples")
        left_out = self.left_out_words()
        return text + (f"; left out: {left_out}" if left_out else "") + "."

    def jsonl(self) -> bytes:
        lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in self.records)
        return "".join(lines).encode()


def _record(item: decisions.ReviewedStudy) -> dict | None:
    sentences = [
        {"number": s.sentence.index + 1, "text": s.sentence.text, "support": s.sentence.support,
         "factual": s.factual,
         "category": s.sentence.category if s.sentence.category in CATEGORIES else None}
        for s in item.sentences if s.sentence.support is not None and s.sentence.support_n
    ]
    if not sentences:
        return None
    n = next(s.sentence.support_n for s in item.sentences if s.sentence.support_n)
    return {"id": f"study-{item.study.pk}", "n_samples": n, "sentences": sentences}


def _scored(item: decisions.ReviewedStudy) -> bool:
    return item.report is not None and any(
        s.support is not None and s.support_n for s in item.report.sentences.all())


def reviewed_studies(n_samples: int | None = None) -> ReviewedExport:
    """Calibration records from the reviewed studies (see the module docstring)."""
    export = ReviewedExport()
    candidates = []
    for item in decisions.reviewed_studies():
        export.studies_reviewed += 1
        if not _scored(item):
            export.without_support += 1
            continue
        record = _record(item)
        if record is None:
            export.without_labels += 1
            continue
        candidates.append(record)
    if not candidates:
        return export
    if n_samples is None:
        n_samples = Counter(r["n_samples"] for r in candidates).most_common(1)[0][0]
    export.n_samples = n_samples
    export.records = [r for r in candidates if r["n_samples"] == n_samples]
    export.other_n = dict(Counter(r["n_samples"] for r in candidates
                                  if r["n_samples"] != n_samples))
    return export
