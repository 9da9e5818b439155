"""The site's reviewed studies as a pre-scored calibration file: learning from the radiologists.

Each sentence of a study's audited report that RadFlag scored (its support is known) becomes a
calibration sentence with that support, its category, and a factual label from the review:

* its effective decision (undone decisions do not count) is a **reject** of a flag → factual:
  the radiologist kept the sentence as written;
* an **accept** of a flag or an **edit** → not factual: the radiologist removed or changed it
  (an edit that only fixes wording counts too — we cannot tell it from a correction);
* no decision: factual when the study is **signed** (the radiologist signed the sentence as it
  stood); otherwise unknown, and the sentence is left out.

Only studies with at least one decision or a signature are read. A calibration file needs one
number of samples n: by default the most common n among the reviewed studies, and studies with
another n are left out (and counted).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from django.db.models import Prefetch, Q

from radreview.review import derivation
from radreview.review.models import Decision
from radreview.studies.models import Report, Sentence, Study
from workers.radflag.calibration import CATEGORIES


@dataclass
class ReviewedExport:
    records: list[dict] = field(default_factory=list)
    n_samples: int | None = None
    studies_read: int = 0
    left_out_other_n: int = 0

    @property
    def sentences(self) -> int:
        return sum(len(record["sentences"]) for record in self.records)

    def jsonl(self) -> bytes:
        lines = (json.dumps(record, ensure_ascii=False) + "\n" for record in self.records)
        return "".join(lines).encode()


def _reviewed_studies():
    return (Study.objects
            .filter(Q(status=Study.Status.SIGNED) | Q(decisions__isnull=False)).distinct()
            .prefetch_related(
                Prefetch("reports", queryset=Report.objects.filter(
                    kind__in=(Report.Kind.UPLOADED, Report.Kind.CANDIDATE)).prefetch_related(
                    Prefetch("sentences", queryset=Sentence.objects.order_by("index")))),
                Prefetch("decisions", queryset=Decision.objects.order_by("id")))
            .order_by("pk"))


def _record(study: Study) -> dict | None:
    report = study.audited_report
    if report is None:
        return None
    scored = [s for s in report.sentences.all() if s.support is not None and s.support_n]
    if not scored:
        return None
    effective = derivation.effective_decisions(list(study.decisions.all()))
    signed = study.status == Study.Status.SIGNED
    sentences = []
    for sentence in scored:
        decision = effective.get(sentence.pk)
        if decision is not None:
            factual = decision.action == Decision.Action.REJECT
        elif signed:
            factual = True
        else:
            continue
        category = sentence.category if sentence.category in CATEGORIES else None
        sentences.append({"text": sentence.text, "support": sentence.support, "factual": factual,
                          "category": category})
    if not sentences:
        return None
    return {"id": f"study-{study.pk}", "n_samples": scored[0].support_n, "sentences": sentences}


def reviewed_studies(n_samples: int | None = None) -> ReviewedExport:
    """Calibration records from the reviewed studies (see the module docstring)."""
    candidates = [record for record in map(_record, _reviewed_studies()) if record is not None]
    export = ReviewedExport(studies_read=len(candidates))
    if not candidates:
        return export
    if n_samples is None:
        n_samples = Counter(r["n_samples"] for r in candidates).most_common(1)[0][0]
    export.n_samples = n_samples
    export.records = [r for r in candidates if r["n_samples"] == n_samples]
    export.left_out_other_n = len(candidates) - len(export.records)
    return export
