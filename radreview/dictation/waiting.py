"""Reports that arrived before their images: the upload takes the newest one for its accession
number when it creates the study (studies/services/upload.py), in the same transaction."""
from __future__ import annotations

from django.utils import timezone

from .models import IncomingReport


def take_for(accession_number: str, patient_id: str) -> IncomingReport | None:
    """The newest report waiting for this accession (and patient, where both say one), marked
    as taken; older ones waiting for it are marked replaced. None when none waits."""
    if not accession_number:
        return None
    waiting = list(IncomingReport.objects.select_for_update().filter(
        state=IncomingReport.State.WAITING, accession_number=accession_number,
    ).order_by("-received_at", "-id"))
    waiting = [report for report in waiting
               if not (report.patient_id and patient_id and report.patient_id != patient_id)]
    if not waiting:
        return None
    newest, older = waiting[0], waiting[1:]
    IncomingReport.objects.filter(pk__in=[report.pk for report in older]).update(
        state=IncomingReport.State.SUPERSEDED)
    newest.state, newest.attached_at = IncomingReport.State.ATTACHED, timezone.now()
    return newest


def attached(incoming: IncomingReport, study, report) -> None:
    """Record which study and report version a taken report became."""
    IncomingReport.objects.filter(pk=incoming.pk).update(
        state=IncomingReport.State.ATTACHED, study=study, report=report,
        attached_at=incoming.attached_at or timezone.now())
