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


def viewer_images(study, leave_out: frozenset[int] = frozenset()) -> list[dict]:
    """The study's DICOM images as the viewer opens them through WADO-RS (images prefetched):
    PA first, then the lateral, then any other view; none of the ids in ``leave_out`` (images
    whose file is missing: the page says so instead)."""
    order = {"PA": 0, "AP": 1, "LATERAL": 2}
    images = [image for image in study.images.all()
              if image.kind == "dicom" and image.sop_instance_uid and image.series_instance_uid
              and image.pk not in leave_out]
    images.sort(key=lambda image: (order.get(image.view, 3), image.position))
    return [{"study": study.study_instance_uid, "series": image.series_instance_uid,
             "sop": image.sop_instance_uid, "label": image.get_view_display()}
            for image in images] if study.study_instance_uid else []
