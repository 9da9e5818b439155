"""Support scores: how many of the n sampled reports entail each sentence of the candidate.

A sentence's support E counts the samples whose verdict is ``complete`` or ``partial``
(docs/design.md, RadFlag: both count as support). The judge is the entailment role: the
built-in rule engine (``workers.nlp.entail``) or, when the llm role is a model, one LLM call
per sentence that sorts every sample into complete / partial / none
(``workers.radflag.llm_support``).

Only sentences in the image sections (findings, impression, wet read, addendum, unlabelled text)
are scored: an INDICATION of "pneumonia" is a question, not a claim the samples could support.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workers.nlp import entail
from workers.nlp.sections import IMAGE_SECTIONS
from workers.pipeline import Progress, no_progress

# The verdicts are their own module so that llm_support (which makes them) and this module
# (which counts them) need not import each other.
from .llm_support import judge_with_model
from .verdicts import COMPLETE, PARTIAL, SUPPORTING, SampleVerdict

SCORED_SECTIONS = IMAGE_SECTIONS


@dataclass(frozen=True)
class SentenceToScore:
    index: int
    text: str
    section: str = "findings"

    @property
    def scored(self) -> bool:
        return self.section in SCORED_SECTIONS


@dataclass(frozen=True)
class SentenceSupport:
    """A sentence's verdicts from all n samples, in sample order."""

    index: int
    verdicts: tuple[SampleVerdict, ...]

    @property
    def n(self) -> int:
        return len(self.verdicts)

    @property
    def support(self) -> int:
        return sum(1 for v in self.verdicts if v.verdict in SUPPORTING)

    @property
    def complete(self) -> int:
        return sum(1 for v in self.verdicts if v.verdict == COMPLETE)

    @property
    def partial(self) -> int:
        return sum(1 for v in self.verdicts if v.verdict == PARTIAL)


#: judge(sentence, reports) -> one verdict per report, in order.
Judge = Callable[[str, Sequence[str]], list[SampleVerdict]]


def judge_builtin(sentence: str, reports: Sequence[str]) -> list[SampleVerdict]:
    """The rule engine's verdict of every report on ``sentence`` (cached per pair)."""
    verdicts = []
    for number, report in enumerate(reports):
        result = entail(sentence, report)
        verdicts.append(SampleVerdict(number, result.verdict, result.reason))
    return verdicts


def judge_sentences(sentences: Sequence[str], reports: Sequence[str], *, model=None,
                    progress: Progress = no_progress) -> list[list[SampleVerdict]]:
    """Every report's verdict on every sentence: the built-in engine, or the llm role's model."""
    if model is not None:
        return judge_with_model(model, sentences, reports, progress=progress)
    verdict_lists = []
    for done, sentence in enumerate(sentences):
        verdict_lists.append(judge_builtin(sentence, reports))
        progress((done + 1) / len(sentences), f"{done + 1} of {len(sentences)} sentences")
    return verdict_lists


def score_support(sentences: Sequence[SentenceToScore], samples: Sequence[str], *, model=None,
                  progress: Progress = no_progress) -> list[SentenceSupport]:
    """The support of every scored sentence against ``samples``.

    ``model``: the llm role (a ``TextModel``) or None for the built-in engine. Sentences
    outside the image sections are left out of the result. Raises ``StructuredOutputError``
    when the model twice answers a sentence with an unusable verdict list.
    """
    if len(samples) < 1:
        raise ValueError("support needs at least one sample")
    scored = [s for s in sentences if s.scored]
    verdict_lists = judge_sentences([s.text for s in scored], samples, model=model,
                                    progress=progress)
    progress(1.0, f"{len(scored)} sentences scored against {len(samples)} samples")
    return [SentenceSupport(s.index, tuple(v)) for s, v in zip(scored, verdict_lists)]
