"""Reads shared by the pages and the API."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.db.models import Count, F, Prefetch, Q, QuerySet

from radreview.jobs.models import Job
from radreview.review import selectors as review
from radreview.review.models import SignOff

from . import storage
from .models import Image, Presence, Report, Sentence, Study, audited_among
from .services.presence import expired_before


@dataclass(frozen=True)
class WorklistFilters:
    """The worklist's filters and sort order, read from a query string (unknown values ignored)."""

    status: str = ""
    flagged: str = ""  # "", "yes", "no"
    signed: str = ""  # "", "yes", "no"
    mine: bool = False
    patient: str = ""  # part of the patient's name or ID
    accession: str = ""
    modality: str = ""
    date_from: date | None = None
    date_to: date | None = None
    sort: str = "newest"

    # Each sort: its ordering, studies without the value last.
    SORTS = {
        "newest": (F("created_at").desc(), F("id").desc()),
        "oldest": (F("created_at").asc(), F("id").asc()),
        "patient": (F("patient_name").asc(), F("id").desc()),
        "patient_id": (F("patient_id").asc(), F("id").desc()),
        "accession": (F("accession_number").asc(), F("id").desc()),
        "study_date": (F("study_date").desc(nulls_last=True), F("id").desc()),
        "harm": (F("open_harm_rank").desc(nulls_last=True), F("created_at").asc()),
        "status": (F("status").asc(), F("id").desc()),
    }
    YES_NO = ("yes", "no")
    TEXT_LIMIT = 64

    @classmethod
    def from_query(cls, query) -> WorklistFilters:
        status = query.get("status", "")
        flagged, signed = query.get("flagged", ""), query.get("signed", "")
        sort = query.get("sort", "newest")
        return cls(
            status=status if status in Study.Status.values else "",
            flagged=flagged if flagged in cls.YES_NO else "",
            signed=signed if signed in cls.YES_NO else "",
            mine=query.get("mine") in ("1", "on", "yes", "true"),
            patient=query.get("patient", "").strip()[:cls.TEXT_LIMIT],
            accession=query.get("accession", "").strip()[:cls.TEXT_LIMIT],
            modality=query.get("modality", "").strip().upper()[:16],
            date_from=_date(query.get("date_from", "")),
            date_to=_date(query.get("date_to", "")),
            sort=sort if sort in cls.SORTS else "newest",
        )

    @property
    def active(self) -> bool:
        return bool(self.status or self.flagged or self.signed or self.mine or self.patient
                    or self.accession or self.modality or self.date_from or self.date_to)


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def _filtered(studies: QuerySet[Study], filters: WorklistFilters, user) -> QuerySet[Study]:
    if filters.status:
        studies = studies.filter(status=filters.status)
    if filters.flagged:
        studies = studies.filter(review.flagged_filter(filters.flagged == "yes"))
    if filters.signed:
        studies = studies.filter(review.signed_filter(filters.signed == "yes"))
    if filters.mine and user is not None:
        studies = studies.filter(review.reviewed_by_filter(user))
    if filters.patient:
        studies = studies.filter(Q(patient_name__icontains=filters.patient)
                                 | Q(patient_id__icontains=filters.patient))
    if filters.accession:
        studies = studies.filter(accession_number__icontains=filters.accession)
    if filters.modality:
        studies = studies.filter(images__metadata__modality=filters.modality).distinct()
    if filters.date_from:
        studies = studies.filter(study_date__gte=filters.date_from)
    if filters.date_to:
        studies = studies.filter(study_date__lte=filters.date_to)
    return studies


def studies_for_worklist(filters: WorklistFilters | None = None, user=None) -> QuerySet[Study]:
    filters = filters or WorklistFilters()
    studies = _filtered(Study.objects.all(), filters, user)
    return review.with_reading_room_columns(review.with_flag_counts(
        studies.select_related("uploaded_by")
        .annotate(image_count=Count("images", distinct=True))
        .prefetch_related(Prefetch("jobs", queryset=Job.objects.order_by("order")), "reports",
                          Prefetch("images", queryset=Image.objects.only(
                              "id", "study_id", "view", "kind", "metadata", "position")))
    )).order_by(*WorklistFilters.SORTS[filters.sort])


def reading_now(study_ids: list[int]) -> dict[int, list[str]]:
    """The usernames of the radiologists who have each study open now (docs/review.md,
    "Worklist"), by study id, in alphabetical order."""
    reading: dict[int, list[str]] = {}
    for study_id, username in (Presence.objects
                               .filter(study_id__in=study_ids, seen_at__gte=expired_before())
                               .order_by("user__username")
                               .values_list("study_id", "user__username")):
        reading.setdefault(study_id, []).append(username)
    return reading


def modality_and_views(study: Study) -> str:
    """"DX · PA, LATERAL" from the study's images (prefetched)."""
    images = list(study.images.all())
    modalities = sorted({(i.metadata or {}).get("modality") or i.get_kind_display()
                         for i in images})
    views = [i.view for i in images if i.view != Image.View.UNKNOWN]
    return " · ".join(part for part in (", ".join(modalities), ", ".join(views)) if part)


def failed_job(study: Study) -> Job | None:
    """The study's failed stage (jobs prefetched), or None."""
    return next((job for job in study.jobs.all() if job.state == Job.State.FAILED), None)


def study_with_everything(pk: int) -> Study:
    """A study with what its page shows, the review included, in a fixed number of queries."""
    sentences = Prefetch("sentences", queryset=Sentence.objects.order_by("index"))
    reports = Prefetch(
        "reports", queryset=Report.objects.prefetch_related(sentences, review.detection_prefetch())
    )
    return (
        Study.objects.select_related("uploaded_by")
        .prefetch_related(
            "images",
            reports,
            Prefetch("jobs", queryset=Job.objects.order_by("order")),
            *review.review_prefetches(),
        )
        .get(pk=pk)
    )


def is_finished(study: Study) -> bool:
    """Whether the pipeline has nothing left to do (every job done, or one failed)."""
    jobs = list(study.jobs.all())
    return all(job.state == Job.State.DONE for job in jobs) or any(
        job.state == Job.State.FAILED for job in jobs
    )


def sections_of(report: Report) -> list[tuple[str, list[Sentence]]]:
    """The report's sentences grouped by section, in order."""
    grouped: list[tuple[str, list[Sentence]]] = []
    for sentence in report.sentences.all():
        if not grouped or grouped[-1][0] != sentence.section:
            grouped.append((sentence.section, []))
        grouped[-1][1].append(sentence)
    return grouped


def images_missing_files(study: Study) -> list[Image]:
    """The study's images whose original file is not in the media folder (images prefetched)."""
    return [image for image in study.images.all() if not storage.exists(image.original.name)]


def _earlier(patient_id: str, study_date: date | None, created_at, exclude_pk=None):
    """Studies of the same patient made before: by study date where both have one, else by when
    they reached RadReview."""
    if not patient_id:
        return Study.objects.none()
    earlier = Q(created_at__lt=created_at) if created_at is not None else Q()
    if study_date is not None:
        earlier = Q(study_date__lt=study_date) | (Q(study_date__isnull=True) & earlier)
    return (Study.objects.filter(patient_id=patient_id).filter(earlier)
            .exclude(pk=exclude_pk).order_by(F("study_date").desc(nulls_last=True),
                                              "-created_at"))


def has_earlier_study(patient_id: str, study_date: date | None) -> bool:
    """Whether RadReview holds an earlier study of this patient (for a study being created)."""
    return _earlier(patient_id, study_date, None).exists()


def priors_of(study: Study, limit: int = 10) -> list[Study]:
    """The same patient's earlier studies in RadReview, most recent first."""
    return list(_earlier(study.patient_id, study.study_date, study.created_at,
                         exclude_pk=study.pk)[:limit])


@dataclass(frozen=True)
class PriorReport:
    """The report of the patient's most recent earlier study that has one: its latest signed
    version, else (not signed yet) the report under review there."""

    study: Study
    text: str
    signoff: SignOff | None


def prior_report(priors: list[Study]) -> PriorReport | None:
    """``PriorReport`` of the first of ``priors`` (most recent first) that has a report."""
    for prior in priors:
        signoff = prior.signoffs.select_related("report", "signer").order_by("-version").first()
        if signoff is not None:
            return PriorReport(prior, signoff.report.text, signoff)
        report = audited_among(prior.reports.filter(kind__in=(Report.Kind.UPLOADED,
                                                              Report.Kind.CANDIDATE)))
        if report is not None:
            return PriorReport(prior, report.text, None)
    return None
