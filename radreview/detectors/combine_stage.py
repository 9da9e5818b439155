"""Combine stage (last): the system combination of every detector's raw detections on the
audited report (Lasko et al.; workers.combine), with the site's weights, thresholds and
false-positive rules (radreview.detectors).

Stores one ``detector="combined"`` row per combined detection, ``sources`` = the raw rows it
merged, ``flagged`` = it reached the site threshold and no rule removed it. The store replaces
any combined rows of the report (so a rerun after a retry leaves one set), in the runner's
transaction; the load reads them with the raw rows, so a first run deletes nothing and asks
nothing more. With the combination switched off it stores nothing, and the review page shows
the raw flagged rows.
"""
from __future__ import annotations

from dataclasses import dataclass

from radreview.jobs.models import Job
from radreview.jobs.stages import Stage
from radreview.review.models import Detection as DetectionRow
from radreview.review.selectors import as_worker_detection
from radreview.review.services import store_detections
from workers import pipeline
from workers.combine import CombinationConfig, DetectorOutput, combine
from workers.detectors import DETECTORS, in_stage
from workers.library.vectors import SentenceVectors
from workers.types import Detection

from .services import combination_config, combination_enabled


@dataclass(frozen=True)
class CombineInputs:
    enabled: bool  # the site combines (else the review shows the raw flagged rows)
    config: CombinationConfig | None  # None when no detector found anything: nothing to combine
    sentences: dict[int, str]
    rows: dict[str, list[tuple[int, Detection]]]  # detector -> (row id, detection)
    has_prior: bool
    replaces: bool  # the report has combined rows of an earlier run


@dataclass(frozen=True)
class CombineResult:
    combined: list[tuple[Detection, list[int], bool]] | None  # None: the site switched it off
    replaces: bool


def load(job) -> CombineInputs:
    study = job.study
    report = study.audited_report
    if report is None:
        raise pipeline.StageError("This study has no report to combine detections on.")
    every = list(report.detections.order_by("id"))
    found = [row for row in every if row.detector != DetectionRow.COMBINED]
    replaces = len(found) < len(every)
    if not found:
        # Nothing to combine, the common case of a clean report: neither the votes nor the
        # site's weights and rules matter (five reads fewer); whether the site combines at all
        # still decides what the job records.
        return CombineInputs(combination_enabled(), None, {}, {}, bool(study.has_prior),
                             replaces)
    # A detector that ran and found nothing still votes; a stage that skipped (no image
    # memory, no samples) examined nothing: no vote, and neither did a detector its stage
    # left out (one that needs images, in a study without them) where the stage counts
    # what each of its detectors found.
    ran = {spec.name for job_row in study.jobs.filter(state=Job.State.DONE)
           if not (isinstance(job_row.result, dict) and job_row.result.get("skipped"))
           for spec in in_stage(job_row.stage) if _looked(job_row.result, spec.name)}
    rows: dict[str, list[tuple[int, Detection]]] = {name: [] for name in DETECTORS
                                                    if name in ran}
    for row in found:
        rows.setdefault(row.detector, []).append((row.pk, as_worker_detection(row)))
    if study.has_prior:
        # they did not look: there is a prior to compare with
        for spec in DETECTORS.values():
            if spec.needs_no_prior:
                rows.pop(spec.name, None)
    for spec in DETECTORS.values():
        if spec.needs_prior_report and not rows.get(spec.name):
            # it found nothing, or had no prior report to look at (a single-purpose detector's
            # silence is no vote either way)
            rows.pop(spec.name, None)
    sentences = dict(report.sentences.values_list("index", "text"))
    config = combination_config()
    return CombineInputs(config is not None, config, sentences, rows, bool(study.has_prior),
                         replaces)


def _looked(result, name: str) -> bool:
    counts = result.get("detections") if isinstance(result, dict) else None
    return not isinstance(counts, dict) or name in counts


def _single_purpose(name: str) -> bool:
    """A detector that looks for one kind of error only: its silence is no vote on others.
    A row of a detector no longer declared counts as a general one."""
    spec = DETECTORS.get(name)
    return spec is not None and spec.single_purpose


def compute(inputs: CombineInputs, models, progress) -> CombineResult:
    if not inputs.enabled:
        return CombineResult(None, inputs.replaces)
    if inputs.config is None:
        progress(1.0, "0 of 0 flagged")
        return CombineResult([], inputs.replaces)
    outputs = [DetectorOutput(name, [d for _, d in found], single_purpose=_single_purpose(name))
               for name, found in inputs.rows.items()]
    embed = SentenceVectors(models["text_embedder"]).embed
    results = combine(outputs, inputs.config, embed, inputs.sentences)
    progress(1.0, f"{sum(r.flagged for r in results)} of {len(results)} flagged")
    return CombineResult([(r.detection, [inputs.rows[name][j][0] for name, j in r.members],
                           r.flagged) for r in results], inputs.replaces)


def store(job, outcome: CombineResult) -> dict:
    results = outcome.combined
    if results is None:
        return {"combined": None, "reason": "switched off"}
    report = job.study.audited_report
    if outcome.replaces:
        DetectionRow.objects.filter(report=report, detector=DetectionRow.COMBINED).delete()
    stored = []
    for flagged in (True, False):
        chosen = [(d, sources) for d, sources, f in results if f == flagged]
        rows = store_detections(report, [d for d, _ in chosen], flagged=flagged)
        stored += [(row, sources) for row, (_, sources) in zip(rows, chosen)]
    through = DetectionRow.sources.through
    through.objects.bulk_create(through(from_detection_id=row.pk, to_detection_id=source)
                                for row, sources in stored for source in sources)
    return {"combined": len(stored), "flagged": sum(1 for _, _, f in results if f)}


COMBINE = Stage(
    "combine", load, compute, store, ("text_embedder",), applies=lambda s: s.will_have_report,
    description="Combine every detector's detections into the flags the radiologist reviews",
    label="Gathering the flags for review")
