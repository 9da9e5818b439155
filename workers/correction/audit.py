"""The text audit of one report: the three text detectors (correction, judge, comparative)
over one shared ``ReportContext``, and their scopes for the system combination."""
from __future__ import annotations

from dataclasses import dataclass

from workers.combine import DetectorOutput
from workers.correction.three_stage import CorrectionResult, correct
from workers.judge import comparative, judge
from workers.judge.checks import run_checks
from workers.judge.context import DEFAULT_NEIGHBOURS, ReportContext
from workers.library.text import TextLibrary
from workers.types import Detection

TEXT_DETECTORS = ("correction", "judge", "comparative")


@dataclass(frozen=True)
class TextAudit:
    context: ReportContext
    correction: CorrectionResult
    judge: list[Detection]
    comparative: list[Detection]

    @property
    def detections(self) -> dict[str, list[Detection]]:
        return {"correction": self.correction.detections, "judge": self.judge,
                "comparative": self.comparative}

    def outputs(self) -> list[DetectorOutput]:
        """The detectors that ran, with their scopes, for ``workers.combine.combine``."""
        outputs = [DetectorOutput("correction", self.correction.detections),
                   DetectorOutput("judge", self.judge)]
        if self.context.has_prior is False:
            # it looks for comparison wording only: its silence is no vote on other errors
            outputs.append(DetectorOutput("comparative", self.comparative, single_purpose=True))
        return outputs


def audit_text(text: str, *, library: TextLibrary | None = None, external_id: str | None = None,
               has_prior: bool | None = None, llm=None, extractor=None,
               k: int = DEFAULT_NEIGHBOURS, neighbours: list | None = None) -> TextAudit:
    """Run correction, judge and comparative on ``text``. ``external_id``: the report's id in
    the library's source (its library copy is never used); ``has_prior``: whether the study has
    a prior exam (None: unknown, so the comparative detector does not run); ``neighbours``:
    the similar reports when the caller retrieved them already."""
    ctx = ReportContext(text, library=library, external_id=external_id, has_prior=has_prior, k=k)
    if neighbours is not None:
        ctx.neighbours = neighbours  # fills the cached property
    issues = None if llm is not None else run_checks(ctx)
    return TextAudit(
        context=ctx,
        correction=correct(ctx, llm=llm, extractor=extractor, issues=issues),
        judge=judge(ctx, llm=llm, issues=issues),
        comparative=comparative.detect(ctx),
    )
