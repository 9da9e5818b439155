"""Report-parsing stage: the audited report's sections and sentences with their spans."""
from __future__ import annotations

from radreview.jobs.stages import Stage
from workers import pipeline
from workers.nlp.sections import IMAGE_SECTIONS

from .models import Report, Sentence

# Shown under the stage on the study page: a report nothing of which was read is no normal one.
UNREAD_NOTE = ("No sentence of this report is in a section that describes the images (findings, "
               "impression, wet read, addendum), so none was audited: read the report itself.")


def load(job) -> str:
    report = job.study.audited_report
    if report is None:
        raise pipeline.StageError(
            "This study has no report: none was uploaded and none was generated."
        )
    return report.text


def compute(text: str, models, progress) -> list[pipeline.ParsedSentence]:
    return pipeline.parse_report(text, progress)


def store(job, sentences: list[pipeline.ParsedSentence]) -> dict | None:
    report: Report = job.study.audited_report
    Sentence.objects.bulk_create(
        Sentence(report=report, index=s.index, text=s.text, start=s.start, end=s.end,
                 section=s.section, category=s.category, findings=s.findings)
        for s in sentences
    )
    if not any(s.section in IMAGE_SECTIONS for s in sentences):
        return {"image_sentences": 0, "note": UNREAD_NOTE}
    return None


PARSE_REPORT = Stage(
    "parse_report", load, compute, store, applies=lambda s: s.will_have_report,
    description="Split the report into sentences; find each sentence's findings",
    label="Reading the report")
