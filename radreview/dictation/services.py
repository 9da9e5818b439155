"""A report delivered apart from its images, matched to its study by accession number.

Every channel (HL7 ORU^R01, FHIR DiagnosticReport, typed on the study page) hands a
``ReportDelivery`` to ``deliver``; one transaction stores it and either attaches it to its study
(the study's first report, or a new version of it: radreview/studies/services/reports.py) or
keeps it waiting for images that have not arrived yet (the upload then takes it:
radreview/dictation/waiting.py). A delivery that cannot be matched safely is refused with the
reason and nothing is stored.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from radreview.errors import ServiceError
from radreview.studies.models import Report, Study
from radreview.studies.services import reports
from radreview.studies.services.upload import UploadRejected, check_text

from .models import IncomingReport

logger = logging.getLogger(__name__)


class DeliveryRefused(ServiceError):
    """A report we do not store; ``message`` says why, for the sender's log or the person."""


@dataclass(frozen=True)
class ReportDelivery:
    channel: str
    text: str
    accession_number: str = ""
    patient_id: str = ""
    result_status: str = ""  # Report.ResultStatus
    sender: str = ""
    message_id: str = ""


@dataclass(frozen=True)
class Delivered:
    incoming: IncomingReport
    replayed: bool = False  # the same message was delivered before: nothing new stored

    @property
    def waiting(self) -> bool:
        return self.incoming.state == IncomingReport.State.WAITING


def _checked(delivery: ReportDelivery) -> str:
    try:
        text = check_text(delivery.text, "The report")
    except UploadRejected as exc:
        raise DeliveryRefused(exc.message) from None
    if not text:
        raise DeliveryRefused("The report has no text.")
    if delivery.result_status not in Report.ResultStatus.values:
        raise DeliveryRefused(f"Unknown result status {delivery.result_status!r}.")
    return text


def _study_for(delivery: ReportDelivery) -> Study | None:
    """The one study with this accession number (and patient ID, where the delivery gives one),
    None when none has arrived yet; refused when it is ambiguous or names another patient."""
    studies = list(Study.objects.filter(accession_number=delivery.accession_number)
                   .order_by("pk")[:2])
    if len(studies) > 1:
        raise DeliveryRefused(f"Several studies carry accession number "
                              f"{delivery.accession_number}; attach the report on the study "
                              "page instead.")
    if not studies:
        return None
    study = studies[0]
    if delivery.patient_id and study.patient_id and delivery.patient_id != study.patient_id:
        raise DeliveryRefused(f"The study with accession number {delivery.accession_number} "
                              "belongs to another patient ID; nothing was stored.")
    return study


def _replayed(delivery: ReportDelivery) -> IncomingReport | None:
    if not delivery.message_id:
        return None
    return IncomingReport.objects.filter(channel=delivery.channel, sender=delivery.sender,
                                         message_id=delivery.message_id).first()


def deliver(delivery: ReportDelivery, *, study: Study | None = None, user=None) -> Delivered:
    """Store a delivered report: attached to ``study`` when given (typed on its page), else to
    the study its accession number names, else waiting for that study's images."""
    text = _checked(delivery)
    if study is None and not delivery.accession_number:
        raise DeliveryRefused("The report names no accession number: it cannot be matched to a "
                              "study.")
    if (earlier := _replayed(delivery)) is not None:
        return Delivered(earlier, replayed=True)
    try:
        with transaction.atomic():
            target = study if study is not None else _study_for(delivery)
            incoming = IncomingReport(
                channel=delivery.channel, sender=delivery.sender[:200],
                message_id=delivery.message_id[:200],
                accession_number=delivery.accession_number[:64],
                patient_id=delivery.patient_id[:64], result_status=delivery.result_status,
                text=text, study=target, state=IncomingReport.State.WAITING)
            if target is not None:
                report = reports.add_version(target, text, source=incoming.source,
                                             result_status=delivery.result_status, user=user)
                incoming.report = report
                incoming.state = (IncomingReport.State.ATTACHED if report is not None
                                  else IncomingReport.State.UNCHANGED)
                incoming.attached_at = timezone.now()
            incoming.save()
    except UploadRejected as exc:
        raise DeliveryRefused(exc.message) from None
    except IntegrityError:  # the same message, delivered twice at once: the other one won
        if (earlier := _replayed(delivery)) is not None:
            return Delivered(earlier, replayed=True)
        raise
    logger.info("%s report %s: %s%s", delivery.channel, incoming.pk, incoming.state,
                f" (study {target.pk})" if target is not None else "")
    return Delivered(incoming)
