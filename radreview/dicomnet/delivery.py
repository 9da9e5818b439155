"""Signed reports to the PACS: the outbox of DICOM SR sends and its retries.

Signing writes an ``SrDelivery`` row in the same transaction (``queue_for``), so no signed
version can miss its send. A worker task (``workers.tasks.send_sr``) calls ``attempt``: it
claims the row, sends, and records success, or the error and when to try again; the task
retries at that time. Retry messages can be lost with the worker (the filesystem broker keeps
them in memory), so a starting worker and the receiver's housekeeping send overdue rows again.
A duplicate message is harmless: only one sender can hold the claim.
"""
from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from radreview.audit.services import record_event
from radreview.celery import app as celery_app
from radreview.review import exports
from radreview.review.models import SignOff

from .models import SrDelivery
from .sender import Destination, SendFailed, store

logger = logging.getLogger(__name__)

SEND_TASK = "workers.tasks.send_sr"
CLAIM_SECONDS = 5 * 60


def queue_for(signoff: SignOff) -> SrDelivery | None:
    """Record the SR send of a signed version (inside the sign-off's transaction) and hand
    it to the workers once that commits; None when no PACS destination is configured."""
    destination = settings.PACS_STORE
    if not destination:
        return None
    _series, instance = exports.sr_uids(exports.study_uid(signoff.study), signoff.version)
    delivery = SrDelivery.objects.create(
        signoff=signoff, study=signoff.study, sop_instance_uid=instance,
        next_attempt_at=timezone.now(), **destination)
    transaction.on_commit(lambda: send(delivery.pk))
    return delivery


def send(delivery_id: int, countdown: float = 0) -> None:
    celery_app.send_task(SEND_TASK, args=[delivery_id], queue="cpu",
                         countdown=countdown or None)


def retry_delay(attempts: int) -> int:
    """Seconds until the next try after ``attempts`` failed ones (doubling, capped)."""
    delay = settings.SR_RETRY_SECONDS * 2 ** max(attempts - 1, 0)
    return min(delay, settings.SR_RETRY_MAX_SECONDS)


def _claim(delivery_id: int) -> SrDelivery | None:
    now = timezone.now()
    won = SrDelivery.objects.filter(pk=delivery_id).filter(
        Q(state=SrDelivery.State.PENDING)
        | Q(state=SrDelivery.State.SENDING, claimed_until__lt=now)).update(
        state=SrDelivery.State.SENDING, claimed_until=now + timedelta(seconds=CLAIM_SECONDS),
        last_attempt_at=now)
    if not won:
        return None
    return SrDelivery.objects.select_related("signoff__report", "signoff__signer",
                                             "study").get(pk=delivery_id)


def sr_bytes(signoff: SignOff) -> bytes:
    """The SR of a signed version, after the same integrity check as an export."""
    if hashlib.sha256(signoff.report.text.encode("utf-8")).hexdigest() != signoff.sha256:
        raise SendFailed("the signed text does not match its signature hash; not sent")
    return exports.build_sr(signoff)


def attempt(delivery_id: int) -> int | None:
    """Try to send one delivery. Returns the seconds until the next try when it failed, None
    when it was sent (or is not this caller's to send)."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    destination = Destination(delivery.ae_title, delivery.host, delivery.port)
    attempts = delivery.attempts + 1
    try:
        store(sr_bytes(delivery.signoff), destination, settings.DICOM_AE_TITLE)
    except (SendFailed, OSError) as exc:
        delay = retry_delay(attempts)
        SrDelivery.objects.filter(pk=delivery.pk).update(
            state=SrDelivery.State.PENDING, attempts=attempts, last_error=str(exc)[:500],
            next_attempt_at=timezone.now() + timedelta(seconds=delay), claimed_until=None)
        record_event("sr_send_failed", study=delivery.study, detail={
            "delivery": delivery.pk, "version": delivery.signoff.version, "attempt": attempts,
            "destination": str(destination), "error": str(exc)[:200], "retry_in_s": delay})
        logger.warning("study %s: SR send %s failed (attempt %s), retrying in %s s: %s",
                       delivery.study_id, delivery.pk, attempts, delay, exc)
        return delay
    SrDelivery.objects.filter(pk=delivery.pk).update(
        state=SrDelivery.State.SENT, attempts=attempts, last_error="", sent_at=timezone.now(),
        next_attempt_at=None, claimed_until=None)
    record_event("sr_sent", study=delivery.study, detail={
        "delivery": delivery.pk, "version": delivery.signoff.version, "attempt": attempts,
        "destination": str(destination), "sop_instance_uid": delivery.sop_instance_uid})
    logger.info("study %s: SR of version %s sent to %s", delivery.study_id,
                delivery.signoff.version, destination)
    return None


def send_now(delivery: SrDelivery, *, actor) -> None:
    """A person asked to try a waiting delivery again now."""
    updated = SrDelivery.objects.filter(pk=delivery.pk, state=SrDelivery.State.PENDING).update(
        next_attempt_at=timezone.now())
    if updated:
        record_event("sr_send_requested", actor=actor, study=delivery.study,
                     detail={"delivery": delivery.pk})
        send(delivery.pk)


def requeue_overdue() -> int:
    """Send again the pending deliveries whose retry is overdue (its message was lost)."""
    grace = timedelta(seconds=max(settings.SR_RETRY_SECONDS, 5))
    overdue = list(SrDelivery.objects.filter(
        state=SrDelivery.State.PENDING, next_attempt_at__lte=timezone.now() - grace,
    ).values_list("pk", flat=True))
    for delivery_id in overdue:
        SrDelivery.objects.filter(pk=delivery_id).update(next_attempt_at=timezone.now())
        send(delivery_id)
    return len(overdue)


def requeue_pending() -> int:
    """On worker start: hand every pending delivery to the workers again."""
    pending = list(SrDelivery.objects.filter(state=SrDelivery.State.PENDING)
                   .values_list("pk", flat=True))
    for delivery_id in pending:
        send(delivery_id)
    return len(pending)
