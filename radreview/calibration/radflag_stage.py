"""RadFlag stage: each sentence's support against the samples, sentence and report flags.

Loads the study context when the stage starts: the audited report (its sentences read as the
parse stage stores them), the study's samples and the thresholds of the active calibration
(or the defaults); stores the support on each Sentence,
one ``radflag`` detection per flagged sentence, and the study's RadFlag result with the
calibration that flagged it.
"""
from __future__ import annotations

from radreview.audit.services import record_event
from radreview.jobs.stages import Stage
from radreview.review.services import store_detections
from radreview.studies.models import Report, Sentence
from workers import pipeline
from workers.detectors import builtin
from workers.radflag import stages
from workers.study import StudyContext

from . import services as calibration


def load(job) -> StudyContext:
    study = job.study
    report = study.audited_report
    if report is None:
        raise pipeline.StageError("This study has no report for RadFlag to audit.")
    samples = tuple(study.reports.filter(kind=Report.Kind.SAMPLE)
                    .order_by("sample_index", "id").values_list("text", flat=True))
    thresholds = calibration.active_thresholds()
    return StudyContext(report.text, samples=samples,
                        settings={builtin.RADFLAG.name: {"thresholds": thresholds}})


def compute(ctx: StudyContext, models, progress) -> stages.RadFlagResult:
    return builtin.RADFLAG.run(ctx, models, progress)


def store(job, result: stages.RadFlagResult) -> dict:
    study = job.study
    if result.skipped or result.outcome is None:
        record_event("radflag_skipped", study=study,
                     detail={"stage": "radflag", "reason": result.skipped})
        return {"skipped": result.skipped}
    report = study.audited_report
    rows = {s.index: s for s in report.sentences.all()}
    categories = {flag.index: flag.category for flag in result.outcome.sentences}
    changed = []
    for support in result.supports:
        row = rows[support.index]
        row.support, row.support_n = support.support, support.n
        row.support_verdicts = [verdict.to_dict() for verdict in support.verdicts]
        row.category = row.category or categories.get(support.index, "")
        changed.append(row)
    Sentence.objects.bulk_update(changed, ["support", "support_n", "support_verdicts", "category"])
    store_detections(report, result.outcome.detections, flagged=True)
    calibration.record_study_result(study, report, result.thresholds, result.outcome,
                                    result.n_samples,
                                    note=result.thresholds.describe(result.n_samples))
    return {"scored": len(result.supports), "flagged": result.outcome.flagged_sentences,
            "report_flagged": result.outcome.report_flagged,
            "calibration": result.thresholds.calibration_id}


RADFLAG = Stage(
    "radflag", load, compute, store,
    applies=lambda s: (s.has_samples or s.has_images) and s.will_have_report,
    description="RadFlag: each sentence's support among the samples; sentence and report flags",
    label="Checking the report against the drafts")
