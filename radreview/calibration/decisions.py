"""What the radiologists said about each sentence of the reviewed studies.

Both calibrations learn from these labels: RadFlag's (export.py, a pre-scored calibration
file) and the system combination's (combination.py). A sentence of a study's audited report is

* **right** (factual) when its effective decision (undone decisions do not count) is a
  **reject** of a flag: the radiologist kept it as written;
* **wrong** when it is an **accept** of a flag or an **edit**: the radiologist removed or
  changed it (an edit that only fixes wording counts too — it cannot be told from a correction);
* with no decision: **right** when the study is **signed** (signed as it stood), otherwise
  unknown and left out.

Only studies with at least one decision or a signature are read.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Prefetch, Q

from radreview.review import derivation
from radreview.review.models import Decision, Detection
from radreview.studies.models import Report, Sentence, Study


@dataclass(frozen=True)
class Labelled:
    sentence: Sentence
    factual: bool


@dataclass(frozen=True)
class ReviewedStudy:
    study: Study
    report: Report | None
    sentences: list[Labelled]  # the sentences with a known label, in report order


def _reviewed(with_detections: bool):
    sentences = Prefetch("sentences", queryset=Sentence.objects.order_by("index"))
    report_parts = [sentences]
    if with_detections:
        report_parts.append(Prefetch("detections", queryset=Detection.objects.filter(
            detector=Detection.COMBINED).only("report_id", "sentence_index", "confidence")))
    return (Study.objects
            .filter(Q(status=Study.Status.SIGNED) | Q(decisions__isnull=False)).distinct()
            .prefetch_related(
                Prefetch("reports", queryset=Report.objects.filter(
                    kind__in=(Report.Kind.UPLOADED, Report.Kind.CANDIDATE)).prefetch_related(
                    *report_parts)),
                Prefetch("decisions", queryset=Decision.objects.order_by("id")))
            .order_by("pk"))


def labels(study: Study, report: Report) -> list[Labelled]:
    effective = derivation.effective_decisions(list(study.decisions.all()))
    signed = study.status == Study.Status.SIGNED
    labelled = []
    for sentence in report.sentences.all():
        decision = effective.get(sentence.pk)
        if decision is not None:
            labelled.append(Labelled(sentence, decision.action == Decision.Action.REJECT))
        elif signed:
            labelled.append(Labelled(sentence, True))
    return labelled


def reviewed_studies(*, with_detections: bool = False) -> Iterator[ReviewedStudy]:
    """Every study with a decision or a signature, oldest first, with its labelled sentences
    (``with_detections``: the audited report's combined rows prefetched too)."""
    for study in _reviewed(with_detections):
        report = study.audited_report
        yield ReviewedStudy(study, report, labels(study, report) if report is not None else [])
