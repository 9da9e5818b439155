"""The audit of one study context: every detector declared for the "audit" stage that looks
at it, over that one shared ``StudyContext``, with their scopes for the system combination.
The audit stage runs it on the context it builds; the batch audit and the benchmarks on a
report's (``audit_text``)."""
from __future__ import annotations

from dataclasses import dataclass

from workers.combine import DetectorOutput
from workers.detectors import Models, in_stage
from workers.library.text import TextLibrary
from workers.pipeline import Progress, no_progress
from workers.study.context import DEFAULT_NEIGHBOURS, StudyContext
from workers.types import Detection

STAGE = "audit"


@dataclass(frozen=True)
class TextAudit:
    context: StudyContext
    detections: dict[str, list[Detection]]

    def outputs(self) -> list[DetectorOutput]:
        """The detectors that looked, with their scopes, for ``workers.combine.combine``. One
        that needs a study with no prior did not look unless the study is known to have none."""
        return [DetectorOutput(spec.name, self.detections[spec.name],
                               single_purpose=spec.single_purpose)
                for spec in in_stage(STAGE)
                if spec.name in self.detections and spec.looks_at(self.context)
                and not (spec.needs_no_prior and self.context.has_prior is not False)
                and not (spec.needs_prior_report and self.context.prior_report is None)]


def audit_text(text: str, *, models: Models | None = None, library: TextLibrary | None = None,
               external_id: str | None = None, has_prior: bool | None = None,
               k: int = DEFAULT_NEIGHBOURS, neighbours: list | None = None,
               prior_report: str | None = None, prior_date: str | None = None,
               date: str | None = None) -> TextAudit:
    """Run the audit stage's detectors on ``text``. ``models``: role → model (a role left out
    is its built-in default); ``external_id``: the report's id in the library's source (its
    library copy is never used); ``has_prior``: whether the study has a prior exam (None:
    unknown; a ``prior_report`` makes it True); ``neighbours``: the similar reports when the
    caller retrieved them already; ``prior_report``, ``prior_date``, ``date``: the prior
    report's text and the two studies' dates, for the prior report checks."""
    ctx = StudyContext(text, library=library, external_id=external_id, has_prior=has_prior, k=k,
                       prior_report=prior_report, prior_date=prior_date, date=date)
    if neighbours is not None:
        ctx.neighbours = neighbours  # fills the cached property
    return audit_context(ctx, models=models)


def audit_context(ctx: StudyContext, *, models: Models | None = None,
                  progress: Progress = no_progress) -> TextAudit:
    """Run the audit stage's detectors that look at ``ctx`` (one that needs the images does
    not look at a study without them). ``models``: role → model (a role left out is its
    built-in default)."""
    models = models or {}
    looking = [spec for spec in in_stage(STAGE) if spec.looks_at(ctx)]
    found = {}
    for number, spec in enumerate(looking):
        found[spec.name] = list(spec.run(ctx, models, no_progress))
        progress((number + 1) / len(looking), f"{spec.short_label}: {len(found[spec.name])}")
    return TextAudit(ctx, found)
