"""Reads of the DICOM side shared by pages: deliveries of a study, the inbox."""
from __future__ import annotations

from .models import InboundStudy, SrDelivery


def deliveries_of(study) -> list[SrDelivery]:
    return list(SrDelivery.objects.filter(study_id=study.pk).select_related("signoff")
                .order_by("-created_at", "-id"))


def recent_inbound(limit: int = 20) -> list[InboundStudy]:
    return list(InboundStudy.objects.select_related("study").prefetch_related("instances")
                .order_by("-last_received_at", "-id")[:limit])


def latest_delivery() -> SrDelivery | None:
    return SrDelivery.objects.order_by("-created_at", "-id").first()
