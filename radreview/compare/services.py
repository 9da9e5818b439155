"""Drafting quality writes: the drafting model of a candidate, the comparison at sign-off and
its errors.

``note_draft`` runs where a draft is stored (the sample stage, an upload of a candidate made
elsewhere). ``record_signoff`` runs inside the sign-off's transaction
(radreview/review/services.sign): when the study's audited report is a model's draft, it
writes a pending ``DraftComparison`` and queues a ``compare_draft`` job, which a worker runs
once the sign-off commits — the language engine is loaded in the workers, not in the web
process, and a lost message is found again like any job's (radreview/jobs/reconcile.py).
The job itself is radreview/compare/stage.py.
"""
from __future__ import annotations

import logging
from datetime import date, timedelta

from django.utils import timezone

from radreview.jobs import services as jobs
from radreview.jobs.models import Job
from radreview.studies.models import Report

from . import selectors
from .models import DraftComparison, DraftOrigin
from .stage import COMPARE_STAGE

logger = logging.getLogger(__name__)

def note_draft(report: Report, model_name: str, model_version: str) -> DraftOrigin:
    """Record which model (and which version of it) drafted ``report``."""
    return DraftOrigin.objects.create(report=report, model_name=model_name[:200],
                                      model_version=model_version[:300])


def week_of(moment) -> date:
    """The Monday of ``moment``'s week in the site's time zone."""
    day = timezone.localdate(moment)
    return day - timedelta(days=day.weekday())


def _same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def record_signoff(signoff) -> DraftComparison | None:
    """Inside the sign-off's transaction: a pending comparison of the study's draft with the
    signed text, when a model drafted the audited report; None otherwise."""
    draft = signoff.study.audited_report
    if draft is None or draft.kind != Report.Kind.CANDIDATE:
        return None  # a report the radiologist or the dictation system wrote
    origin = DraftOrigin.objects.filter(report=draft).first()
    name = origin.model_name if origin else (draft.source or "unknown model")
    version = origin.model_version if origin else ""
    DraftComparison.objects.filter(study=signoff.study, current=True).update(current=False)
    comparison = DraftComparison.objects.create(
        study=signoff.study, signoff=signoff, draft=draft, model_name=name,
        model_version=version, signed_at=signoff.signed_at, week=week_of(signoff.signed_at),
        unchanged=_same_text(draft.text, signoff.report.text))
    job = Job.objects.create(stage=COMPARE_STAGE, params={"comparison": comparison.pk},
                             queue="cpu")
    jobs.enqueue(job)
    return comparison


def retry_comparison(comparison: DraftComparison, *, actor) -> bool:
    """Queue a failed comparison job again (an admin asked for it); False when the comparison
    has no failed job (done, or still waiting in the queue)."""
    job = selectors.failed_jobs([comparison]).get(comparison.pk)
    if job is None:
        return False
    jobs.retry(job, actor=actor)
    logger.info("study %s: the draft comparison was queued again", comparison.study_id)
    return True
