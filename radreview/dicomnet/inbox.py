"""Instances received over DICOM: kept in the inbox, grouped by StudyInstanceUID, and turned
into a study through the upload service once the sender has gone quiet.

``receive`` runs in the receiver's C-STORE handler: it checks the instance with the same
decoder the upload uses (so a bad file is refused to its sender at once, with the reason),
answers a re-sent instance without storing it twice, and writes the file atomically.
``ingest`` hands a quiet batch to ``create_studies`` — the same checks and the same study
creation as a browser upload — and records the study or the refusal on the batch.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.files import File
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from radreview.accounts.models import User
from radreview.audit.services import record_event
from radreview.studies.models import Image, Study
from radreview.studies.services.upload import UploadRejected, UploadRequest, create_studies
from radreview.studies.storage import open_media, remove_folder, write_media_atomically
from workers import imaging

from .models import InboundInstance, InboundStudy

logger = logging.getLogger(__name__)

INBOX_FOLDER = "dicom-inbox"
# The account received studies are "uploaded by": it cannot log in.
RECEIVER_USERNAME = "dicom-receiver"


@dataclass(frozen=True)
class Received:
    """The answer to one C-STORE: ``ok`` and, when refused, why (at most 64 characters, the
    length of DICOM's Error Comment)."""

    ok: bool
    comment: str = ""


def receiver_user() -> User:
    user, created = User.objects.get_or_create(
        username=RECEIVER_USERNAME,
        defaults={"role": User.Role.RADIOLOGIST, "is_active": False,
                  "first_name": "DICOM", "last_name": "receiver"},
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def receive(data: bytes, calling_ae: str) -> Received:
    """Check and keep one instance (a DICOM Part 10 file as bytes)."""
    try:
        decoded = imaging.read_dicom(data)
    except imaging.ImagingError as exc:
        logger.info("C-STORE from %s refused: %s", calling_ae, exc.message)
        return Received(False, exc.message[:64])
    meta = decoded.metadata
    if not meta.sop_instance_uid or not meta.study_instance_uid:
        return Received(False, "The instance has no SOP or Study Instance UID")
    stored = Image.objects.filter(sop_instance_uid=meta.sop_instance_uid).values_list(
        "study_id", flat=True).first()
    if stored is not None:
        # A re-send (a retry, or the PACS routing again) joins what is there: nothing new.
        logger.info("C-STORE from %s: instance already in study %s", calling_ae, stored)
        return Received(True)
    existing = Study.objects.filter(study_instance_uid=meta.study_instance_uid).values_list(
        "pk", flat=True).first()
    if existing is not None:
        logger.info("C-STORE from %s refused: a new instance for study %s", calling_ae, existing)
        return Received(False, f"Study is already RadReview study #{existing}; not added")
    _keep(data, meta.study_instance_uid, meta.sop_instance_uid, calling_ae)
    return Received(True)


def _open_batch(study_uid: str, calling_ae: str) -> InboundStudy:
    now = timezone.now()
    batch = InboundStudy.objects.filter(study_instance_uid=study_uid,
                                        state=InboundStudy.State.RECEIVING).first()
    if batch is None:
        try:
            with transaction.atomic():
                return InboundStudy.objects.create(study_instance_uid=study_uid,
                                                   calling_ae=calling_ae[:16],
                                                   last_received_at=now)
        except IntegrityError:  # another association opened it a moment ago
            batch = InboundStudy.objects.get(study_instance_uid=study_uid,
                                             state=InboundStudy.State.RECEIVING)
    return batch


def _keep(data: bytes, study_uid: str, sop_uid: str, calling_ae: str) -> None:
    batch = _open_batch(study_uid, calling_ae)
    relative = write_media_atomically(f"{INBOX_FOLDER}/{batch.pk}/{_safe(sop_uid)}.dcm", data)
    InboundInstance.objects.update_or_create(
        batch=batch, sop_instance_uid=sop_uid,
        defaults={"path": relative, "size_bytes": len(data)},
    )
    InboundStudy.objects.filter(pk=batch.pk).update(last_received_at=timezone.now())


def _safe(uid: str) -> str:
    return "".join(ch for ch in uid if ch.isdigit() or ch == ".")[:64] or "instance"


def request_ingest(batch: InboundStudy) -> None:
    """Queue a batch now instead of after the quiet period (the receiver picks it up)."""
    InboundStudy.objects.filter(pk=batch.pk, state=InboundStudy.State.RECEIVING).update(
        trigger_requested=True)


def due_batches() -> list[InboundStudy]:
    quiet_since = timezone.now() - timedelta(seconds=settings.DICOM_QUIET_SECONDS)
    return list(InboundStudy.objects.filter(state=InboundStudy.State.RECEIVING).filter(
        Q(trigger_requested=True) | Q(last_received_at__lte=quiet_since)).order_by("pk"))


def ingest(batch: InboundStudy) -> Study | None:
    """Turn a batch into a study, or record why it was refused. Returns the study, or None
    when the batch was refused or someone else is ingesting it."""
    won = InboundStudy.objects.filter(pk=batch.pk, state=InboundStudy.State.RECEIVING).update(
        state=InboundStudy.State.INGESTING)
    if not won:
        return None
    instances = list(batch.instances.order_by("id"))
    handles = [open_media(instance.path) for instance in instances]
    try:
        existing = Study.objects.filter(study_instance_uid=batch.study_instance_uid).first()
        if existing is not None:
            raise UploadRejected(f"This study is already RadReview study #{existing.pk}; the "
                                 "instances received later were not added.")
        files = [File(handle, name=f"{instance.sop_instance_uid}.dcm")
                 for handle, instance in zip(handles, instances)]
        studies = create_studies(user=receiver_user(), request=UploadRequest(
            files=files, source=Study.Source.DICOM, source_detail=batch.calling_ae))
    except UploadRejected as exc:
        _finish(batch, InboundStudy.State.REFUSED, error=exc.message)
        record_event("dicom_study_refused", detail={"batch": batch.pk, "reason": exc.message,
                                                    "instances": len(instances)})
        logger.info("inbound batch %s refused: %s", batch.pk, exc.message)
        return None
    except BaseException:
        # Unexpected: leave the batch to be tried again rather than lose it.
        InboundStudy.objects.filter(pk=batch.pk).update(state=InboundStudy.State.RECEIVING)
        raise
    finally:
        for handle in handles:
            handle.close()
    study = studies[0]
    _finish(batch, InboundStudy.State.DONE, study=study)
    logger.info("inbound batch %s became study %s (%s instances)", batch.pk, study.pk,
                len(instances))
    return study


def _finish(batch: InboundStudy, state: str, *, study: Study | None = None,
            error: str = "") -> None:
    InboundStudy.objects.filter(pk=batch.pk).update(state=state, study=study, error=error,
                                                    finished_at=timezone.now())
    # The study keeps its own copy of each file; a refused batch keeps nothing.
    remove_folder(f"{INBOX_FOLDER}/{batch.pk}")
