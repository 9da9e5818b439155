"""A study's report arriving after its images, and each new version of it.

A study has one report under audit (``Report.Kind.UPLOADED``). When a new version arrives (a
final report after a preliminary one, a correction), the current one becomes ``SUPERSEDED`` in
the same transaction that stores the new one, and the stages that read the report run again on
the new version; decisions made on sentences it did not change are carried over once its flags
are computed (radreview/review/carry_forward.py).
"""
from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import F, Max

from radreview.audit.services import record_event
from radreview.jobs import services as jobs
from workers import pipeline

from ..models import Report, Study
from .upload import UploadRejected, check_text

logger = logging.getLogger(__name__)


def _same_text(first: str, second: str) -> bool:
    return " ".join(first.split()) == " ".join(second.split())


def add_version(study: Study, text: str, *, source: str, result_status: str = "",
                user=None) -> Report | None:
    """Make ``text`` the study's report under audit: its first report, or a new version of it,
    and run the report's stages on it. None when it says what the current version says (a
    message sent twice, a final report identical to the preliminary one): nothing changes."""
    cleaned = check_text(text, "The report")
    if not cleaned:
        raise UploadRejected("The report is empty.")
    if result_status not in Report.ResultStatus.values:
        raise UploadRejected(f"Unknown report status {result_status!r}.")
    with transaction.atomic():
        # Serialise versions of one study: its row lock (SQLite's write lock) is taken first,
        # by an update that changes nothing.
        Study.objects.filter(pk=study.pk).update(review_version=F("review_version"))
        current = Report.objects.filter(study=study, kind=Report.Kind.UPLOADED).first()
        if current is not None and _same_text(current.text, cleaned):
            return None
        previous = Report.objects.filter(study=study, kind__in=(
            Report.Kind.UPLOADED, Report.Kind.SUPERSEDED)).aggregate(last=Max("version"))
        version = (previous["last"] or 0) + 1
        if current is not None:
            Report.objects.filter(pk=current.pk).update(kind=Report.Kind.SUPERSEDED)
            # A review page open on the old version can no longer decide on it.
            Study.objects.filter(pk=study.pk).update(review_version=F("review_version") + 1)
        report = Report.objects.create(
            study=study, kind=Report.Kind.UPLOADED, text=cleaned, source=source[:200],
            version=version, result_status=result_status,
            created_by=user if getattr(user, "pk", None) else None)
        jobs.rerun_for_report(study, pipeline.StudyInputs(
            has_images=study.images.exists(), has_report=True))
        record_event("report_received", actor=user, study=study, detail={
            "version": version, "source": source[:200], "status": result_status})
    logger.info("study %s: report version %s from %s", study.pk, version, source[:40])
    return report
