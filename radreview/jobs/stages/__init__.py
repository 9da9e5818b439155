"""Every stage of the pipeline, in order, in one table: its three parts and when it runs.

A stage has three parts: ``load(job)`` reads the plain inputs from the database,
``compute(inputs, models, progress)`` works on plain data with the models of the stage's roles
(loaded on first use), and ``store(job, result)`` writes the results inside the transaction
that also marks the job done, and returns what the job records as its result (a dict the
study and site pages show; None records none), which the runner writes with the done mark.
Study stages read ``job.study``; site jobs read ``job.params``.
A stage's roles are its own plus those of the detectors it runs (workers.detectors), so a
detector that needs a model sends its stage to the queue that serves that model. The runner
treats every stage alike.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from radreview.calibration import stage as calibrate
from radreview.compare import stage as compare_draft
from radreview.dicomnet import pacs_import
from radreview.library import text_stage as import_reference
from radreview.modelroles import stage as probe_role
from workers.detectors import stage_roles
from workers.pipeline import StudyInputs, queue_for

from . import audit, combine, image_import, ingest, radflag, rarrg, report, sample, vrag


def _site_job(inputs: StudyInputs) -> bool:
    return False


@dataclass(frozen=True)
class Stage:
    name: str
    load: Callable[[Any], Any]
    compute: Callable[..., Any]
    store: Callable[[Any, Any], None]
    own_roles: tuple[str, ...] = ()
    applies: Callable[[StudyInputs], bool] = _site_job  # site jobs are started, not planned
    description: str = ""  # what it does, for admins
    # The step in plain words, for radiologists: their pages never show a stage's name.
    label: str = ""

    @property
    def roles(self) -> tuple[str, ...]:
        """The model roles the stage uses: they decide its queue and what ``compute`` gets."""
        return tuple(dict.fromkeys(self.own_roles + stage_roles(self.name)))

    @property
    def queue(self) -> str:
        return queue_for(self.roles)


def _stage(name, module, roles, applies, description, label) -> Stage:
    return Stage(name, module.load, module.compute, module.store, roles, applies, description,
                 label)


# The order of a study's stages. Generation comes before parsing (a drafted report is parsed
# like an uploaded one); detectors come after parsing; the system combination comes last.
STUDY_STAGES: tuple[Stage, ...] = (
    _stage("ingest", ingest, (), lambda s: s.has_images, "Decode images and make previews",
           "Reading the images"),
    _stage("sample", sample, ("generator", "image_encoder"),
           lambda s: s.has_images and not s.has_samples and s.will_have_report,
           "RadFlag: draft the candidate (when no report was uploaded) and the n samples",
           "Drafting reports from the images"),
    _stage("parse_report", report, (), lambda s: s.will_have_report,
           "Split the report into sentences; find each sentence's findings",
           "Reading the report"),
    _stage("radflag", radflag, (), lambda s: (s.has_samples or s.has_images)
           and s.will_have_report,
           "RadFlag: each sentence's support among the samples; sentence and report flags",
           "Checking the report against the drafts"),
    _stage("audit", audit, ("text_embedder",), lambda s: s.will_have_report,
           "Audit the report's text: three-stage correction, consistency judge, comparisons",
           "Checking the report"),
    _stage("vrag", vrag, (), lambda s: s.has_images and s.will_have_report,
           "V-RAG: probe the report's findings against the most similar reference images",
           "Comparing with similar reference images"),
    _stage("rarrg", rarrg, (), lambda s: s.has_images and s.will_have_report,
           "RA-RRG: key phrases of similar reference images; a draft; unsupported sentences",
           "Comparing with the reports of similar images"),
    _stage("combine", combine, ("text_embedder",), lambda s: s.will_have_report,
           "Combine every detector's detections into the flags the radiologist reviews",
           "Gathering the flags for review"),
)

SITE_STAGES: tuple[Stage, ...] = (
    Stage("probe_role", probe_role.load, probe_role.compute, probe_role.store),
    Stage("calibrate", calibrate.load, calibrate.compute, calibrate.store, ("llm",)),
    Stage(import_reference.STAGE, import_reference.load, import_reference.compute,
          import_reference.store),
    Stage(image_import.IMPORT_STAGE, image_import.load, image_import.compute,
          image_import.store),
    Stage(image_import.REBUILD_STAGE, image_import.rebuild_load, image_import.rebuild_compute,
          image_import.store),
    Stage(pacs_import.STAGE, pacs_import.load, pacs_import.compute, pacs_import.store),
    Stage(compare_draft.COMPARE_STAGE, compare_draft.load, compare_draft.compute,
          compare_draft.store),
)

STAGES: dict[str, Stage] = {stage.name: stage for stage in STUDY_STAGES + SITE_STAGES}


def label_of(name: str) -> str:
    """A stage's plain name for a radiologist's page. A stage no longer declared (the jobs of
    studies from an earlier version) has none of its own."""
    stage = STAGES.get(name)
    return stage.label if stage is not None and stage.label else "A processing step"


def description_of(name: str) -> str:
    stage = STAGES.get(name)
    return stage.description if stage is not None else ""


def plan(inputs: StudyInputs) -> list[Stage]:
    """The stages a study goes through, in order."""
    return [stage for stage in STUDY_STAGES if stage.applies(inputs)]
