"""The "compare_draft" site job: a signed study's draft against its signed report, in a worker
(where the language engine is loaded already). Its store writes the errors in the job's done
transaction; a rerun of the job replaces them."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from django.utils import timezone

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from workers.compare.compare import Comparison, compare_reports

from .models import DraftComparison, DraftError

logger = logging.getLogger(__name__)

COMPARE_STAGE = "compare_draft"


@dataclass(frozen=True)
class Pair:
    comparison: int
    draft: str
    signed: str


def load(job: Job) -> Pair:
    comparison = DraftComparison.objects.select_related("draft", "signoff__report").get(
        pk=job.params["comparison"])
    return Pair(comparison.pk, comparison.draft.text, comparison.signoff.report.text)


def compute(pair: Pair, models, progress) -> tuple[int, Comparison]:
    result = compare_reports(pair.draft, pair.signed)
    progress(1.0, f"{len(result.errors)} errors")
    return pair.comparison, result


def store(job: Job, result: tuple[int, Comparison]) -> dict:
    comparison_id, compared = result
    comparison = DraftComparison.objects.select_for_update().get(pk=comparison_id)
    comparison.errors.all().delete()
    DraftError.objects.bulk_create(
        DraftError(comparison=comparison, position=n, category=e.category,
                   significant=e.significant, candidate_sentence=e.candidate_sentence or "",
                   reference_sentence=e.reference_sentence or "", explanation=e.explanation)
        for n, e in enumerate(compared.errors))
    comparison.state = DraftComparison.State.DONE
    comparison.errors_total = len(compared.errors)
    comparison.errors_significant = compared.significant
    comparison.score = compared.score
    comparison.compared_at = timezone.now()
    comparison.save(update_fields=["state", "errors_total", "errors_significant", "score",
                                   "compared_at"])
    logger.info("study %s: draft compared, %s errors", comparison.study_id, len(compared.errors))
    return {"comparison": comparison_id, "errors": len(compared.errors),
            "significant": compared.significant}


COMPARE_DRAFT = Stage(COMPARE_STAGE, load, compute, store)
