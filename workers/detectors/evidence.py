"""The evidence each built-in detector stores in ``Detection.evidence``, as typed dataclasses.

A detector emits its evidence as the JSON object of these fields (``asdict``); the API serves
their JSON schema (``GET /api/detectors/``) and docs/detections.md lists them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


def doc(text: str, default=None, factory=None):
    """A field with its description for the schema."""
    if factory is not None:
        return field(default_factory=factory, metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


@dataclass(frozen=True)
class RadFlagEvidence:
    """RadFlag: how many samples support the sentence, against which thresholds."""

    support: int = doc("samples that entail the sentence (completely or partially)", 0)
    n: int = doc("samples scored", 0)
    complete: int = doc("samples that completely entail it", 0)
    partial: int = doc("samples that partially entail it", 0)
    lambda1: int = doc("the sentence threshold: flagged when support < lambda1", 0)
    category: str = doc("finding category whose lambda1 applies (Devices, Lungs, ...)", "")
    calibration: int | None = doc("id of the calibration that set the thresholds")
    calibration_version: int | None = doc("its version")
    alpha: float | None = doc("the calibrated risk level")
    thresholds: Literal["calibration", "default"] = doc("where the thresholds came from",
                                                        "default")
    note: str = doc("the thresholds in words", "")
    lambda2: int = doc("the report threshold: flagged sentences needed to flag the report", 0)
    flagged_sentences: int = doc("flagged sentences in the report", 0)
    report_flagged: bool = doc("the report reaches lambda2", False)
    verdicts: list[dict] = doc("per sample: sample, verdict (complete/partial/none), reason",
                               factory=list)


@dataclass(frozen=True)
class CorrectionEvidence:
    """Three-stage correction: the internal and external retrieval and each stage's answer."""

    original: str = doc("the sentence as written", "")
    suggestion: str | None = doc("the corrected sentence (\"\" = delete it; null = no "
                                 "automatic replacement, see readings)", "")
    suggestion_reason: str = doc("why the suggestion goes this way (the report's own text, "
                                 "or why none is made)", "")
    readings: list[dict] = doc("when the text does not say which side is wrong: the choices "
                               "(choice keep/align/other, sentence, text, label)", factory=list)
    internal: list[str] = doc("the report's own RadGraph phrases relevant to it", factory=list)
    neighbours: list[dict] = doc("the most similar reference reports (external retrieval)",
                                 factory=list)
    stages: dict = doc("detect, localize and correct: each stage's answer", factory=dict)
    prompts: list[str] | None = doc("prompt versions, when a language model answered")


@dataclass(frozen=True)
class JudgeEvidence:
    """Consistency judge: the rule that fired and the sentence it compares with."""

    rule: str = doc("contradiction, laterality, impression_vs_findings, out_of_domain, "
                    "unsupported_by_library, ... or llm", "")
    related_sentence: int | None = doc("index of the sentence it disagrees with")
    detail: str = doc("what the rule found, in words", "")
    llm_rule: str | None = doc("the language model's own rule name (rule = llm)")


@dataclass(frozen=True)
class ComparativeEvidence:
    """Comparison wording in a study with no prior exam."""

    terms: list[str] = doc("the comparison words found (unchanged, prior, ...)", factory=list)
    has_prior: bool = doc("whether the study has a prior exam (always false when it flags)",
                          False)
    suggestion_reason: str = doc("why the suggestion goes this way", "")


@dataclass(frozen=True)
class VragEvidence:
    """V-RAG: the entity probed, the answer, and the reference images behind it."""

    entity: str = doc("the disease entity probed", "")
    question: str = doc("the yes/no question asked", "")
    answer: str = doc("yes, no or unsure", "")
    report_says: str = doc("present, uncertain, absent or not mentioned", "")
    neighbours: list[dict] = doc("retrieved reference images and what their reports say",
                                 factory=list)
    score: float = doc("the neighbours' vote, in [-1, 1]", 0.0)
    method: str = doc("builtin vote, generator or llm", "")
    encoder: str = doc("the image encoder", "")
    encoder_learned: bool = doc("whether the encoder has learned weights", False)
    reason: str | None = doc("the model's reason, when a model answered")


@dataclass(frozen=True)
class RarrgEvidence:
    """RA-RRG: the retrieved key phrases closest to an unsupported sentence."""

    phrases: list[dict] = doc("closest retrieved key phrases: text, score, similarity",
                              factory=list)
    unsupported: str = doc("the sentence no phrase supports", "")
    reason: str = doc("why it is not supported", "")
    threshold: float = doc("the phrase selection threshold", 0.0)


@dataclass(frozen=True)
class ContradictionEvidence:
    """Contradicting sentences: the other sentence of the pair and which side is doubted."""

    kind: Literal["heart_size", "global_normal", "presence", "side", "severity", "count",
                  "temporal", "device"] = doc("what the two sentences disagree on", "presence")
    observation: str = doc("the finding this sentence's claim is about", "")
    other_sentence_index: int = doc("index of the other sentence of the pair", 0)
    other_sentence: str = doc("the other sentence, as written", "")
    this_claim: str = doc("the words of this sentence that make its claim", "")
    other_claim: str = doc("the words of the other sentence that make its claim", "")
    doubted: bool = doc("whether this side is the one doubted", False)
    doubted_sentence_index: int | None = doc(
        "index of the doubted sentence (None: the text cannot say which)")
    reason: str = doc("why that side is doubted", "")
    suggestion_reason: str | None = doc(
        "why the suggestion goes this way (a doubted normal impression aligned with the "
        "finding), or why none is made (two statements of what is there); None otherwise")
    readings: list[dict] = doc(
        "when two statements of what is there disagree and the text cannot say which is "
        "right: both readings (choice keep/other, sentence, text, label), neither made "
        "automatically", factory=list)


@dataclass(frozen=True)
class PriorEvidence:
    """Comparison with the prior report: the claim, the check and the prior sentence."""

    check: Literal["new_but_prior", "unchanged_but_absent", "resolved_but_never", "direction",
                   "comparison_none", "prior_not_addressed"] = doc(
        "what the prior report does not bear out", "new_but_prior")
    observation: str | None = doc("the finding the claim is about (None: the comparison line)")
    claim: str = doc("the words of this sentence that make the claim", "")
    prior_sentence_index: int | None = doc(
        "index of the prior report's sentence the doubt rests on (None: the prior never names "
        "the finding)")
    prior_sentence: str | None = doc("that sentence, as written")
    prior_claim: str = doc("the words of the prior sentence that speak of the finding", "")
    prior_date: str | None = doc("the prior study's date, as given")
    date: str | None = doc("this study's date, as given")
    detail: str = doc("why this sentence is doubted, in words", "")
    suggestion_reason: str = doc("why the suggestion goes this way, or why none is made", "")
