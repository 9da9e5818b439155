"""The comparative-language detector (RA-RRG's keyword list): wording that compares with a
prior exam, in a study that has none to compare with.

A sentence that says "unchanged", "stable", "compared with the prior", "new", ... claims a
comparison nobody made. The suggestion is the sentence with the comparison removed
(``workers.nlp.remove_comparisons``), or removing the sentence when nothing is left. Strong
cues (the engine's comparison cues: unchanged, stable, interval, prior, new, ...) give a high
confidence; words that only sometimes compare ("old", "chronic", "more") a low one.
"""
from __future__ import annotations

from workers.library.stats import tokens_of
from workers.nlp import find_comparisons, harm_of, remove_comparisons
from workers.nlp.vocabulary import comparison_cue, mentions_concept
from workers.study.context import StudyContext
from workers.types import Detection, Harm

DETECTOR = "comparative"
STRONG = 0.85
WEAK = 0.35
REASON = ("the study has no prior exam, so the comparison has nothing to compare with; "
           "what the sentence finds is kept")


def compared_sentences(ctx: StudyContext) -> frozenset[int]:
    """The sentences with comparative wording (none when the study has a prior exam or nobody
    knows)."""
    if ctx.has_prior is not False:
        return frozenset()
    return frozenset(i for i in ctx.image_sentences if find_comparisons(ctx.sentence(i).text))


def detect(ctx: StudyContext) -> list[Detection]:
    """One detection per sentence with comparative wording, when the study has no prior."""
    if ctx.has_prior is not False:
        return []
    detections = []
    for i in sorted(compared_sentences(ctx)):
        sentence = ctx.sentence(i)
        terms = list(dict.fromkeys(term for _, _, term in find_comparisons(sentence.text)))
        strong = comparison_cue(sentence.text.lower()) is not None
        stripped = remove_comparisons(sentence.text)
        # what is left must still say something: a finding, or a few words
        suggestion = stripped if (mentions_concept(stripped.lower())
                                  or len(tokens_of(stripped)) >= 3) else ""
        if suggestion == sentence.text:
            suggestion = None
        findings = [f for f in ctx.findings.get(i, []) if not f.implied]
        harm = max((harm_of(f.observation, f.status) for f in findings),
                   key=lambda h: h.rank, default=Harm.LOW)
        quoted = ", ".join(f"'{t}'" for t in terms)
        detections.append(Detection(
            sentence_index=i, start=sentence.start, end=sentence.end, detector=DETECTOR,
            explanation=(f"Compares with a prior exam ({quoted}), but this study has no prior "
                         f"exam to compare with."),
            harm=harm, confidence=STRONG if strong else WEAK,
            evidence={"terms": terms, "has_prior": False,
                      "suggestion_reason": REASON if suggestion is not None else ""},
            suggestion=suggestion))
    return detections
