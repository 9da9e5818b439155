"""Reads shared by the pages and the API."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Prefetch, QuerySet

from radreview.jobs.models import Job

from .models import Report, Sentence, Study


@dataclass(frozen=True)
class WorklistFilters:
    """The worklist's filters and sort order, read from a query string (unknown values ignored)."""

    status: str = ""
    flagged: str = ""  # "", "yes", "no"
    signed: str = ""  # "", "yes", "no"
    mine: bool = False
    sort: str = "newest"  # or "oldest"

    SORTS = {"newest": ("-created_at", "-id"), "oldest": ("created_at", "id")}
    YES_NO = ("yes", "no")

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
            sort=sort if sort in cls.SORTS else "newest",
        )

    @property
    def active(self) -> bool:
        return bool(self.status or self.flagged or self.signed or self.mine)


def studies_for_worklist(filters: WorklistFilters | None = None, user=None) -> QuerySet[Study]:
    from radreview.review import selectors as review

    filters = filters or WorklistFilters()
    studies = Study.objects.all()
    if filters.status:
        studies = studies.filter(status=filters.status)
    if filters.flagged:
        studies = studies.filter(review.flagged_filter(filters.flagged == "yes"))
    if filters.signed:
        studies = studies.filter(review.signed_filter(filters.signed == "yes"))
    if filters.mine and user is not None:
        studies = studies.filter(review.reviewed_by_filter(user))
    return review.with_flag_counts(
        studies.select_related("uploaded_by")
        .annotate(image_count=Count("images", distinct=True))
        .prefetch_related(Prefetch("jobs", queryset=Job.objects.order_by("order")), "reports")
        .order_by(*WorklistFilters.SORTS[filters.sort])
    )


def study_with_everything(pk: int) -> Study:
    """A study with what its page shows, the review included, in a fixed number of queries."""
    from radreview.review import selectors as review

    sentences = Prefetch("sentences", queryset=Sentence.objects.order_by("index"))
    reports = Prefetch("reports", queryset=Report.objects.prefetch_related(sentences, review.detection_prefetch()))
    return (
        Study.objects.select_related("uploaded_by")
        .prefetch_related("images", reports, Prefetch("jobs", queryset=Job.objects.order_by("order")),
                          *review.review_prefetches())
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
