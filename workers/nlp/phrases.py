"""Key phrases (RA-RRG style) and comparative wording.

``key_phrases(text)`` gives one short phrase per finding of a report, built from the finding's
normalised fields ("small left pleural effusion", "no pneumothorax", "possible right lower lobe
pneumonia", "mild cardiomegaly"); a normal statement gives its own phrase ("clear lungs",
"normal heart size"). Comparisons with a prior exam never enter a phrase: the fields carry no
comparison, which is what RA-RRG asks of its LLM-refined phrases.

``COMPARATIVE_TERMS`` is our selection of RA-RRG's comparative keywords; ``find_comparisons``
locates them in a sentence (RA-RRG uses them as a detector of comparisons with a prior exam
the system cannot have seen); ``remove_comparisons`` strips them from free text.
"""
from __future__ import annotations

import re

from workers.nlp.findings import ABSENT, UNCERTAIN, Finding, findings_tuple
from workers.nlp.sections import ParsedReport
from workers.nlp.vocabulary import COMPARATIVE_RE, COMPARATIVE_TERMS

__all__ = ["COMPARATIVE_TERMS", "find_comparisons", "key_phrases", "phrase_of",
           "remove_comparisons"]

# How a location reads before a noun, alone and with a side.
_LOCATION_ADJECTIVE = {
    "base": "basilar", "apex": "apical", "perihilar": "perihilar", "upper lobe": "upper lobe",
    "middle lobe": "middle lobe", "lower lobe": "lower lobe", "lingula": "lingular",
    "retrocardiac": "retrocardiac", "midlung": "midlung", "upper lung": "upper lung",
    "lower lung": "lower lung", "costophrenic angle": "costophrenic", "fissure": "fissural",
    "peripheral": "peripheral", "central": "central", "mediastinum": "mediastinal",
    "rib": "rib", "spine": "spinal", "clavicle": "clavicular", "shoulder": "shoulder",
    "sternum": "sternal", "chest wall": "chest wall", "soft tissue": "soft tissue",
    "breast": "breast", "axilla": "axillary", "neck": "neck", "abdomen": "abdominal",
    "thyroid": "thyroid", "scapula": "scapular", "lung": "lung",
}
_BILATERAL_FORM = {"base": "bibasilar", "apex": "biapical", "perihilar": "bilateral perihilar"}
# Observations whose name already says where they are.
_PLACED = {"pleural effusion", "pleural thickening", "pneumothorax", "cardiomegaly",
           "enlarged cardiomediastinum", "hilar enlargement"}


def phrase_of(f: Finding) -> str:
    """The short phrase of one finding: [no|possible] severity side location observation."""
    words = []
    if f.severity and f.status != ABSENT:
        words.append(f.severity)
    location = f.location if f.observation not in _PLACED else None
    if location and f.laterality == "bilateral" and location in _BILATERAL_FORM:
        words.append(_BILATERAL_FORM[location])
    else:
        if f.laterality:
            words.append(f.laterality)
        if location:
            words.append(_LOCATION_ADJECTIVE.get(location, location))
    words.append(f.observation)
    phrase = " ".join(words)
    if f.status == ABSENT:
        return "no " + phrase
    if f.status == UNCERTAIN:
        return "possible " + phrase
    return phrase


def key_phrases(text: str | ParsedReport) -> list[str]:
    """One phrase per finding of ``text`` (duplicates removed, reading order kept)."""
    phrases: dict[str, None] = {}
    for f in findings_tuple(text):
        phrase = f.cue if f.implied and f.cue else phrase_of(f)
        phrases.setdefault(phrase, None)
    return list(phrases)


def find_comparisons(sentence: str) -> list[tuple[int, int, str]]:
    """``(start, end, term)`` for every comparative term in ``sentence``."""
    return [(m.start(), m.end(), m.group().lower()) for m in COMPARATIVE_RE.finditer(sentence)]


_PRIOR_TAIL_RE = re.compile(
    r",?\s*\b(?:(?:as )?compared (?:to|with)|since|from|when compared (?:to|with)|relative to)"
    r"\s+(?:the\s+)?(?:prior|previous|recent|last|earlier)(?:\s+(?:study|exam|examination|"
    r"radiograph|film|chest x-?ray|image|ct))?(?:\s+(?:dated|from|of)\s+\S+)?", re.IGNORECASE)


# "Interval improvement in X" -> "X"; "X is again noted" / "again noted is X" -> "X".
_CHANGE_LEAD_RE = re.compile(
    r"\b(?:there (?:is|are|has been|have been) )?(?:an? )?(?:slight |mild |minimal |marked |"
    r"significant |further |slightly |mildly )?(?:interval |continued |persistent )?"
    r"(?:improvement|worsening|increase|decrease|progression|development|resolution|change|"
    r"enlargement|improving|increasing|decreasing|resolving|reduction)(?: in size| in extent)?"
    r" (?:in|of) (?:the )?", re.IGNORECASE)
_AGAIN_RE = re.compile(
    r"\b(?:(?:is|are|has been|have been|was|were)\s+)?(?:again|redemonstrated|re-demonstrated|"
    r"stably|still|once again)\s+(?:noted|seen|demonstrated|identified|visualized|present|"
    r"evident)?(?:\s+(?:is|are)\b)?", re.IGNORECASE)


def remove_comparisons(text: str) -> str:
    """``text`` without comparative wording ("unchanged", "compared with the prior study", ...),
    whitespace and stray commas tidied."""
    out = _PRIOR_TAIL_RE.sub("", text)
    out = _CHANGE_LEAD_RE.sub("", out)
    out = _AGAIN_RE.sub("", out)
    out = COMPARATIVE_RE.sub("", out)
    out = re.sub(r"\s+([,.;:])", r"\1", out)
    out = re.sub(r"(^|[.;:]\s*),\s*", r"\1", out)
    out = re.sub(r",\s*(?=[.;:]|$)", "", out)
    out = re.sub(r"\s{2,}", " ", out).strip()
    out = re.sub(r"^(?:is|are)\s+", "", out)
    return out[:1].upper() + out[1:] if out[:1].islower() and text[:1].isupper() else out
