"""Report-parsing stage: the audited report's sections and sentences with their spans."""
from __future__ import annotations

from workers import pipeline

from radreview.studies.models import Report, Sentence


def load(job) -> str:
    report = job.study.audited_report
    if report is None:
        raise pipeline.StageError("This study has no report: none was uploaded and none was generated.")
    return report.text


def compute(text: str, progress) -> list[pipeline.ParsedSentence]:
    return pipeline.parse_report(text, progress)


def store(job, sentences: list[pipeline.ParsedSentence]) -> None:
    report: Report = job.study.audited_report
    Sentence.objects.bulk_create(
        Sentence(report=report, index=s.index, text=s.text, start=s.start, end=s.end,
                 section=s.section, category=s.category, findings=s.findings)
        for s in sentences
    )
