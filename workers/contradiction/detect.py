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

import re

from workers.nlp.vocabulary import SEVERITY_RE, severity_of
from workers.study.context import StudyContext
from workers.types import Detection

from .find import find_contradictions
from .pairs import (
    BETWEEN_FINDINGS,
    COUNT,
    DEVICE,
    GLOBAL_NORMAL,
    HEART_SIZE,
    PRESENCE,
    SEVERITY,
    SIDE,
    TEMPORAL,
    Contradiction,
)

DETECTOR = "contradiction"

_WHAT = {
    HEART_SIZE: "the heart size",
    GLOBAL_NORMAL: "whether the chest is normal",
    PRESENCE: "whether {obs} is present",
    SIDE: "the side of {obs}",
    SEVERITY: "the size of {obs}",
    COUNT: "how many there are of {obs}",
    TEMPORAL: "how {obs} changed since the prior exam",
    DEVICE: "where the {obs} is",
}


def _claim_words(c: Contradiction, index: int) -> str:
    return c.claim_of(index).words


def explanation(ctx: StudyContext, c: Contradiction, index: int) -> str:
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


def suggestion(ctx: StudyContext, c: Contradiction, index: int) -> str | None:
    """For the doubted global normal statement of an IMPRESSION, the impression aligned with
    the finding ("No acute cardiopulmonary process." -> "Large right pleural effusion.");
    nothing elsewhere: a positive side is never rewritten, and a normal statement among the
    findings is the radiologist's to reword."""
    if c.kind != GLOBAL_NORMAL or c.doubted != index \
            or ctx.sentence(index).section != "impression":
        return None
    words = c.other_of(index).words.strip().rstrip(".")
    return words[:1].upper() + words[1:] + "." if words else None


BOTH_READINGS_REASON = ("both sentences state what is there and disagree; the text alone "
                        "cannot say which is right, so neither is changed automatically: "
                        "choose the reading the images show")
_SIDE_SWAP = {"left": "right", "right": "left"}


def _aligned(ctx: StudyContext, c: Contradiction, change: int) -> str | None:
    """Sentence ``change`` made to agree with the other sentence of the pair, where that is a
    change of one word: a side ("left" for "right") or a size word ("mild" for "severe")."""
    text = ctx.sentence(change).text
    mine, theirs = c.claim_of(change).finding, c.other_of(change).finding
    if c.kind == SIDE and mine.laterality in _SIDE_SWAP \
            and theirs.laterality == _SIDE_SWAP[mine.laterality]:
        return re.sub(r"\b(left|right|Left|Right)\b",
                      lambda m: _cased(_SIDE_SWAP[m.group().lower()], m.group()), text)
    if c.kind == SEVERITY and mine.severity and theirs.severity:
        words = [m for m in re.finditer(r"\b\w+\b", text)
                 if _severity_word(m.group()) == mine.severity]
        other = ctx.sentence(c.other_of(change).sentence).text
        replacement = [m.group() for m in re.finditer(r"\b\w+\b", other)
                       if _severity_word(m.group()) == theirs.severity]
        # one word for one word of the same form ("mild" for "severe", not "severe" for
        # "mildly")
        if len(words) == 1 and replacement \
                and words[0].group().lower().endswith("ly") \
                == replacement[0].lower().endswith("ly"):
            m = words[0]
            return text[:m.start()] + _cased(replacement[0].lower(), m.group()) + text[m.end():]
    return None


def _severity_word(word: str) -> str | None:
    m = SEVERITY_RE.fullmatch(word.lower())
    return severity_of(m) if m else None


def _cased(word: str, like: str) -> str:
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def readings(ctx: StudyContext, c: Contradiction, index: int) -> list[dict]:
    """The two readings of a pair of statements of what is there: this sentence is right (and
    the other is changed to agree), or the other is (and this one is changed)."""
    other = c.other_of(index).sentence
    out = []
    for keep, change in ((index, other), (other, index)):
        aligned = _aligned(ctx, c, change)
        label = ("If this sentence is right" if keep == index
                 else f"If sentence {keep + 1} is right")
        if aligned is not None and aligned != ctx.sentence(change).text:
            out.append({"choice": "keep" if keep == index else "other", "sentence": change,
                        "text": aligned,
                        "label": f"{label}, change sentence {change + 1} to"})
        else:
            out.append({"choice": "keep" if keep == index else "other", "sentence": keep,
                        "text": ctx.sentence(keep).text,
                        "label": f"{label}, keep it and correct sentence {change + 1}"})
    return out


def detections(ctx: StudyContext) -> list[Detection]:
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
            evidence["readings"] = []
            if c.kind in BETWEEN_FINDINGS:
                evidence["readings"] = readings(ctx, c, index)
                evidence["suggestion_reason"] = BOTH_READINGS_REASON
            out.append(Detection(
                sentence_index=index, start=sentence.start, end=sentence.end,
                detector=DETECTOR, explanation=explanation(ctx, c, index), harm=c.harm,
                confidence=c.confidence, evidence=evidence, suggestion=proposed))
    return out
