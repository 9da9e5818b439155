"""Reads shared by the pages and the API."""
from __future__ import annotations

from django.db.models import Count, Prefetch, QuerySet

from radreview.jobs.models import Job

from .models import Report, Sentence, Study


def studies_for_worklist() -> QuerySet[Study]:
    return (
        Study.objects.select_related("uploaded_by")
        .annotate(image_count=Count("images", distinct=True))
        .prefetch_related(Prefetch("jobs", queryset=Job.objects.order_by("order")), "reports")
        .order_by("-created_at", "-id")
    )


def study_with_everything(pk: int) -> Study:
    sentences = Prefetch("sentences", queryset=Sentence.objects.order_by("index"))
    reports = Prefetch("reports", queryset=Report.objects.prefetch_related(sentences))
    return (
        Study.objects.select_related("uploaded_by")
        .prefetch_related("images", reports, Prefetch("jobs", queryset=Job.objects.order_by("order")))
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
