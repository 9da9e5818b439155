"""RA-RRG as a detector: sentences of the audited report that no retrieved key phrase supports.

The selected phrases are read as one report ("small left pleural effusion. no
pneumothorax. ...") and each sentence that states a finding is judged against it with the
rule engine's entailment function (docs/nlp.md): a positive finding no phrase states, or any
finding a phrase contradicts, is unsupported. A negative finding is supported unless a phrase
states the opposite, so normal statements are only flagged when the neighbours disagree. The
text embedder ranks the phrases shown as evidence: the closest ones to the sentence.
"""
from __future__ import annotations

import numpy as np

from workers.nlp import entail, harm_of
from workers.nlp.findings import IMAGE_SECTIONS
from workers.study import StudyContext
from workers.types import Detection

from .retrieval import PhraseRetrieval

EVIDENCE_PHRASES = 5


def _support_text(phrases: list[str]) -> str:
    return " ".join(p.rstrip(".") + "." for p in phrases)


def unsupported_sentences(ctx: StudyContext, retrieval: PhraseRetrieval, embedder=None,
                          neighbours: int = 0, phrase_vectors=None) -> list[Detection]:
    """``rarrg`` detections for the sentences of the context's report that the selected
    phrases do not support.

    ``phrase_vectors(texts) -> array``: the phrases' text vectors (the image memory's phrase
    bank holds them); otherwise the embedder embeds them. Only unsupported sentences are
    embedded, for their evidence.
    """
    parsed, grouped = ctx.parsed, ctx.findings
    phrases = retrieval.selected
    support = _support_text([p.text for p in phrases])
    unsupported = []
    for sentence in parsed.sentences:
        if sentence.section not in IMAGE_SECTIONS or not grouped[sentence.index]:
            continue
        verdict = entail(sentence.text, support) if phrases else None
        if verdict is None or verdict.verdict not in ("complete", "partial"):
            unsupported.append((sentence, verdict))
    if not unsupported:
        return []
    similarity = None
    if embedder is not None and phrases:
        texts = [p.text for p in phrases]
        bank = phrase_vectors(texts) if phrase_vectors is not None else embedder.embed(texts)
        similarity = embedder.embed([s.text for s, _ in unsupported]) @ np.asarray(bank).T
    detections = []
    for row, (sentence, verdict) in enumerate(unsupported):
        stated = [f for f in grouped[sentence.index] if f.status != "absent"]
        if verdict is None:
            reason = "no key phrase was selected for this study's images"
        else:
            reason = (verdict.reason.replace("the report states", "the retrieved phrases state")
                      .replace("the report", "the retrieved phrases"))
        if similarity is not None:
            order = np.argsort(-similarity[row])[:EVIDENCE_PHRASES]
            closest = [{"text": phrases[i].text, "score": round(float(phrases[i].score), 4),
                        "similarity": round(float(similarity[row, i]), 4)} for i in order]
        else:
            closest = [{"text": p.text, "score": round(float(p.score), 4)}
                       for p in phrases[:EVIDENCE_PHRASES]]
        contradicted = verdict is not None and "not stated" not in verdict.reason
        harm = max((harm_of(f.observation, f.status) for f in stated or grouped[sentence.index]),
                   key=lambda h: h.rank)
        where = (f"the key phrases retrieved from the {neighbours} most similar reference "
                 "images" if neighbours else "the retrieved key phrases")
        detections.append(Detection(
            sentence_index=sentence.index, start=sentence.start, end=sentence.end,
            detector="rarrg", explanation=f"Not supported by {where}: {reason.rstrip('.')}.",
            harm=harm, confidence=0.6 if contradicted else 0.45,
            evidence={"phrases": closest, "unsupported": sentence.text,
                      "reason": reason, "threshold": retrieval.threshold},
        ))
    return detections
