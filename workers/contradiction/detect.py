"""Contradictions as detections: both sentences of a pair flagged, each naming the other.

Each detection's explanation quotes the other sentence and says which side is doubted and
why; its harm is the pair's (the more harmful side); its evidence is a
``workers.detectors.evidence.ContradictionEvidence`` (built here as its plain dict: the
registry imports this package, not the other way round). The positive side is never
rewritten to agree with a normal statement; a doubted global normal IMPRESSION ("No acute
cardiopulmonary process.") is offered aligned with the finding; any other doubted normal
statement is the radiologist's to reword (the panel names the sentence it contradicts).
"""
from __future__ import annotations

from workers.nlp.report import ReportContext
from workers.types import Detection

from .find import find_contradictions
from .pairs import GLOBAL_NORMAL, HEART_SIZE, PRESENCE, SEVERITY, SIDE, Contradiction

DETECTOR = "contradiction"

_WHAT = {
    HEART_SIZE: "the heart size",
    GLOBAL_NORMAL: "whether the chest is normal",
    PRESENCE: "whether {obs} is present",
    SIDE: "the side of {obs}",
    SEVERITY: "the size of {obs}",
}


def _claim_words(c: Contradiction, index: int) -> str:
    return c.claim_of(index).words


def explanation(ctx: ReportContext, c: Contradiction, index: int) -> str:
    other = c.other_of(index).sentence
    quote = ctx.sentence(other).text
    what = _WHAT[c.kind].format(obs=c.claim_of(index).finding.observation)
    head = (f"Contradicts sentence {other + 1}, \u201c{quote}\u201d, on {what}: this sentence "
            f"says \u201c{_claim_words(c, index)}\u201d, that one \u201c"
            f"{_claim_words(c, other)}\u201d.")
    if c.doubted is None:
        return f"{head} Neither side is doubted more: {c.reason}."
    if c.doubted == index:
        return (f"{head} This sentence is the one doubted: {c.reason}. Correct this one if "
                f"the images show the other.")
    return (f"{head} The other sentence is the one doubted: {c.reason}. Keep this one unless "
            f"the images show otherwise.")


ALIGN_REASON = ("the impression summarises the findings: it is aligned with the finding they "
                "describe, never the finding with the summary")


def suggestion(ctx: ReportContext, c: Contradiction, index: int) -> str | None:
    """For the doubted global normal statement of an IMPRESSION, the impression aligned with
    the finding ("No acute cardiopulmonary process." -> "Large right pleural effusion.");
    nothing elsewhere: a positive side is never rewritten, and a normal statement among the
    findings is the radiologist's to reword."""
    if c.kind != GLOBAL_NORMAL or c.doubted != index \
            or ctx.sentence(index).section != "impression":
        return None
    words = c.other_of(index).words.strip().rstrip(".")
    return words[:1].upper() + words[1:] + "." if words else None


def detections(ctx: ReportContext) -> list[Detection]:
    """Two detections per contradiction, one on each sentence."""
    out = []
    for c in find_contradictions(ctx):
        for index in c.sentences:
            sentence = ctx.sentence(index)
            other = c.other_of(index)
            evidence = {
                "kind": c.kind, "observation": c.claim_of(index).finding.observation,
                "other_sentence_index": other.sentence,
                "other_sentence": ctx.sentence(other.sentence).text,
                "this_claim": _claim_words(c, index),
                "other_claim": _claim_words(c, other.sentence),
                "doubted": c.doubted == index, "doubted_sentence_index": c.doubted,
                "reason": c.reason}
            proposed = suggestion(ctx, c, index)
            evidence["suggestion_reason"] = ALIGN_REASON if proposed is not None else None
            out.append(Detection(
                sentence_index=index, start=sentence.start, end=sentence.end,
                detector=DETECTOR, explanation=explanation(ctx, c, index), harm=c.harm,
                confidence=c.confidence, evidence=evidence, suggestion=proposed))
    return out
