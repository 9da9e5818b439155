"""An impression written from findings: the abnormal ones, most harmful first, else the global
normal statement. RA-RRG's composer and V-RAG's rewrite both end a report with it."""
from __future__ import annotations

from workers.nlp.findings import extract_findings
from workers.nlp.harm import harm_of
from workers.nlp.sections import parse_report
from workers.nlp.vocabulary import CONCEPT_BY_NAME

GLOBAL_NORMAL = "no acute cardiopulmonary abnormality"


def as_sentence(text: str) -> str:
    """``text`` with a capital first letter and one full stop."""
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:] + "."


def abnormality(phrase: str) -> tuple[bool, int]:
    """Whether a phrase states an abnormality, and how harmful it would be (rank)."""
    rank, abnormal = 0, False
    for f in extract_findings(phrase):
        concept = CONCEPT_BY_NAME.get(f.observation)
        if f.status != "absent" and concept is not None and concept.abnormal \
                and not concept.device:
            abnormal = True
            rank = max(rank, harm_of(f.observation, f.status).rank)
    return abnormal, rank


def impression_of(phrases) -> str:
    """The abnormal findings among phrases (or sentences), most harmful first; else the
    global normal statement."""
    if isinstance(phrases, str):
        phrases = [s.text for s in parse_report(phrases).sentences]
    abnormal = [(rank, i, t) for i, t in enumerate(phrases)
                for is_abnormal, rank in [abnormality(t)] if is_abnormal]
    abnormal.sort(key=lambda item: (-item[0], item[1]))
    return " ".join(as_sentence(t) for _, _, t in abnormal) or as_sentence(GLOBAL_NORMAL)
