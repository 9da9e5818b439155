"""The registry of stages: every stage the runner can run, and the order of a study's stages.

A stage has three parts: ``load(job)`` reads the plain inputs from the database,
``compute(inputs, models, progress)`` works on plain data with the models of the stage's roles
(loaded on first use), and ``store(job, result)`` writes the results inside the transaction
that also marks the job done, and returns what the job records as its result (a dict the
study and site pages show; None records none), which the runner writes with the done mark.
Study stages read ``job.study``; site jobs read ``job.params``.
A stage's roles are its own plus those of the detectors it runs (workers.detectors), so a
detector that needs a model sends its stage to the queue that serves that model. The runner
treats every stage alike.

The job system imports no feature: each app declares its stages next to their code and
names them in its ``AppConfig.ready()`` by where they live (``declare``), as apps register
admin models or signal receivers. A stage's module is imported when the stage is first looked
up (a job runs it, a study is planned, a page shows its label), not when Django starts: stage
modules import what their work needs (pydicom, faiss, the image memory, the detectors), which a
command like ``label_reports`` or a web process that never runs the stage does not.
``register`` adds a stage object directly. A study stage's place in the pipeline is
``STUDY_ORDER`` below.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from workers.detectors import stage_roles
from workers.pipeline import StudyInputs, queue_for


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


# The order of a study's stages. Generation comes before parsing (a drafted report is parsed
# like an uploaded one); detectors come after parsing; the system combination comes last.
# Stages from "parse_report" on read the report under audit (a new version runs them again).
STUDY_ORDER: tuple[str, ...] = (
    "ingest", "sample", "parse_report", "radflag", "audit", "vrag", "rarrg", "combine")

def _check_place(stage: Stage) -> None:
    """A study stage (one that is planned: it has ``applies``) has its place in
    ``STUDY_ORDER``; a site job has none."""
    planned = stage.applies is not _site_job
    if planned != (stage.name in STUDY_ORDER):
        raise ImproperlyConfigured(
            f"Stage {stage.name!r}: a study stage needs both a place in STUDY_ORDER and "
            "``applies``; a site job has neither.")


class StageTable(MutableMapping[str, Stage]):
    """Stage name -> ``Stage``. A stage declared by where it lives (``"module:ATTRIBUTE"``)
    is imported on its first lookup; membership and names need no import."""

    def __init__(self) -> None:
        self._stages: dict[str, Stage] = {}
        self._declared: dict[str, str] = {}

    def declare(self, name: str, where: str) -> None:
        taken = self._declared.get(name)
        if (taken or where) != where or (taken is None and name in self._stages):
            raise ImproperlyConfigured(f"Two stages are registered as {name!r}.")
        self._declared[name] = where

    def __getitem__(self, name: str) -> Stage:
        stage = self._stages.get(name)
        if stage is None:
            module, _, attribute = self._declared[name].partition(":")
            stage = getattr(import_module(module), attribute)
            if stage.name != name:
                raise ImproperlyConfigured(
                    f"{self._declared[name]} is the stage {stage.name!r}, declared as {name!r}.")
            _check_place(stage)
            self._stages[name] = stage
        return stage

    def __setitem__(self, name: str, stage: Stage) -> None:
        self._stages[name] = stage

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._stages.pop(name, None)
        self._declared.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._stages or name in self._declared

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*self._declared, *self._stages]))

    def __len__(self) -> int:
        return len(set(self._declared) | set(self._stages))


# Every registered stage by name, study stages and site jobs alike; filled by the apps' ready().
STAGES = StageTable()


def declare(**where: str) -> None:
    """Name an app's stages and where each lives (``name="module:ATTRIBUTE"``), imported on
    first lookup. A name is taken once (declaring the same place again, as a second ``ready()``
    would, changes nothing)."""
    for name, place in where.items():
        STAGES.declare(name, place)


def register(*stages: Stage) -> None:
    """Add stages already imported. A study stage must have its place in ``STUDY_ORDER``, and
    a name is taken once (registering the same stage again changes nothing)."""
    for stage in stages:
        _check_place(stage)
        if STAGES.setdefault(stage.name, stage) != stage:
            raise ImproperlyConfigured(f"Two stages are registered as {stage.name!r}.")


def study_stages() -> tuple[Stage, ...]:
    """Every study stage, in pipeline order."""
    missing = [name for name in STUDY_ORDER if name not in STAGES]
    if missing:
        raise ImproperlyConfigured(f"No installed app registered the study stages {missing}.")
    return tuple(STAGES[name] for name in STUDY_ORDER)


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
    return [stage for stage in study_stages() if stage.applies(inputs)]
