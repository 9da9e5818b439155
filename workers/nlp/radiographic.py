"""What a chest radiograph can show, so that out-of-domain claims stand out.

A chest radiograph shows shadows of the chest: the lungs, pleura, heart and mediastinum, bones,
soft tissues and devices, and at its edges the esophagus, the stomach and the upper abdomen.
It cannot show a gastric ulcer, a migraine or cirrhosis. The word lists are data
(workers/nlp/lexicon/, each with its sources); this module is the mechanism:

* known radiology wording is never out of domain: every observation of the engine's
  vocabulary and every term of the curated lists (findings, devices, device positions,
  anatomy, procedures, report words such as "detected" or "clearly");
* an organ at the film's edge ("gastric", "esophageal", "colonic") is a place, not a
  condition: it is out of domain only when it names the place of a condition ("gastric
  cancer"), not of a device, a part or a film finding ("gastric tube", "gastric fundus",
  "likely colonic" gas);
* sites outside the chest ("renal", "knee"), conditions diagnosed clinically ("migraine",
  "syndrome") and words built like disease names (-itis, -osis, -oma, -emia, ...) are out of
  domain;
* thoracic diagnoses a film can suggest but not show (fungal and occupational lung diseases,
  lymphoma, embolism) and eponymous diseases are "borderline" - unless the report itself only
  suggests them ("concerning for septic emboli", "could be either infection or infarction");
* a term the report gives as the patient's history ("in this patient with rectal cancer",
  "history of ...") is no claim about the film.
"""
from __future__ import annotations

import re
from functools import lru_cache

from workers.nlp import lexicon
from workers.nlp.sentences import continues_sentence
from workers.nlp.vocabulary import concept_mentions, concept_spans

RADIOGRAPHIC = "radiographic"
BORDERLINE = "borderline"
OUT_OF_DOMAIN = "out_of_domain"
UNKNOWN = "unknown"

_PARTLY_SHOWN = ("partly_shown_organs",)
_OUTSIDE = ("outside_chest",)

# "X's disease" / "Barrett's esophagus": an eponym tells nothing about the chest on its own.
_EPONYM_RE = re.compile(r"\b([A-Z][a-z]+)(?:'s|s') (?:[a-z]+)\b")

# Disease-like word shapes. "-oma" needs a consonant before it so "stoma", "coma" stay apart.
_DISEASE_SHAPE_RE = re.compile(
    r"\b[a-z]{3,}(?:itis|itides|osis|[^aeiou\s]omas?|omata|emia|aemia|pathy|pathies|algia|"
    r"iasis|megaly|plasia|trophy|plegia|paresis|rrhea|rrhoea|ectasia|cele|uria|penia|malacia|"
    r"pnea|pnoea|rrhagia)\b")

# A hedge or an attribution before a borderline term in its clause: the report only suggests
# it, or names it as the cause of what the film shows ("widening due to hematoma").
_SUGGESTED_BEFORE_RE = re.compile(
    r"\b(?:may|might|could|possibl\w*|probabl\w*|likely|concern\w*|suspicious|suspect\w*|"
    r"suggest\w*|worrisome|question\w*|differential|either|versus|vs|consider\w*|if|whether|"
    r"rule out|exclude\w*|due to|secondary to|related to|caused by|attributed to|"
    r"consistent with|compatible with|in keeping with|represent\w*|reflect\w*)\b")
# The patient's history: what the clinician knows, not what the film shows.
_HISTORY_BEFORE_RE = re.compile(
    r"\b(?:history of|h/o|hx of|known|in this patient|patient with|status post|s/p)\b")
_CLAUSE_BREAK_RE = re.compile(r"[;:]|[.?!](?:\s|$)")
# The words after an organ word that say what it is the place of ("gastric ... tube").
_NEXT_WORD_RE = re.compile(r"[ \t]+([a-z][a-z'-]*)")
# (besides the words no sentence ends with: "the", "of", "is", ...)
_PHRASE_STOPS = frozenset({"below", "above", "through", "along", "beyond", "near", "where",
                           "when", "while", "who", "so", "because"})
# Heads that name a disease at the organ ("bowel disease", "liver process").
_SUMMARY_HEADS = frozenset({"disease", "diseases", "process", "processes", "abnormality",
                            "abnormalities", "pathology"})


def _known_spans(lower: str) -> list[tuple[int, int]]:
    return concept_spans(lower) + lexicon.term_spans(lower)


def _inside(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(a <= span[0] and span[1] <= b for a, b in spans)


def _clause_before(lower: str, start: int) -> str:
    before = lower[:start]
    breaks = list(_CLAUSE_BREAK_RE.finditer(before))
    return before[breaks[-1].end():] if breaks else before


def _names_condition(lower: str, end: int) -> bool:
    """Whether the words right after an organ word (up to three, before punctuation or a
    function word) name a condition rather than a device, a part, a procedure or a film
    finding: "gastric cancer" yes; "gastric tube", "gastric remnant", "likely colonic." no."""
    words = []
    while len(words) < 3:
        m = _NEXT_WORD_RE.match(lower, end)
        if not m or m.group(1) in _PHRASE_STOPS or continues_sentence(m.group(1)):
            break
        end = m.end()
        if m.group(1) != "xxxx":  # a de-identified word says nothing ("bowel XXXX pattern")
            words.append(m.group(1))
    if any(w in _SUMMARY_HEADS for w in words):
        return True
    if any(lexicon.in_lists(w, lexicon.SEEN_THING_LISTS) for w in words):
        return False
    return any(not lexicon.is_radiology_word(w) for w in words)


@lru_cache(maxsize=8192)
def _classify_terms(text: str) -> tuple[tuple[str, str], ...]:
    """(term, status) for every disease-like or site term of ``text`` that the radiology
    vocabulary does not cover and that the text states as a finding (not as history)."""
    lower = text.lower()
    organs = [m.span() for m in lexicon.term_pattern(_PARTLY_SHOWN).finditer(lower)]
    # an organ word on its own is a place (decided below); inside a longer term ("gastric
    # pull-through", "esophageal temperature probe") it is that term
    known = [span for span in _known_spans(lower) if span not in organs]
    found: list[tuple[str, str]] = []
    seen = set()

    def add(span, status):
        term = text[span[0]:span[1]]
        clause = _clause_before(lower, span[0])
        if term.lower() in seen or _inside(span, known) or _HISTORY_BEFORE_RE.search(clause):
            return
        if status == BORDERLINE and _SUGGESTED_BEFORE_RE.search(clause):
            return  # "concerning for septic emboli": suggested, as a film can
        seen.add(term.lower())
        found.append((term, status))

    # "hand" in "the right-hand side" names a side, not a hand
    for m in lexicon.term_pattern(_OUTSIDE).finditer(lower):
        if not re.match(r"[- ]sided?\b", lower[m.end():]):
            add(m.span(), OUT_OF_DOMAIN)
    for start, end in organs:
        if _names_condition(lower, end):
            add((start, end), OUT_OF_DOMAIN)
    for m in _EPONYM_RE.finditer(text):
        if not lexicon.is_radiology_word(m.group(1)):
            add(m.span(), BORDERLINE)
    for m in re.finditer(r"\b[a-z][a-z-]+\b", lower):
        word = m.group()
        if lexicon.is_radiology_word(word):
            continue
        if lexicon.in_lists(word, ("suggested_only",)):
            add(m.span(), BORDERLINE)
        elif lexicon.in_lists(word, ("clinical_only",)):
            add(m.span(), OUT_OF_DOMAIN)
        elif _DISEASE_SHAPE_RE.fullmatch(word):
            add(m.span(), OUT_OF_DOMAIN)
    return tuple(found)


def out_of_domain_terms(text: str, *, strict: bool = False) -> list[str]:
    """Disease-like or site words of ``text`` that a chest radiograph cannot show (with
    ``strict``, also the borderline ones such as "aspergillosis")."""
    return [t for t, status in _classify_terms(text)
            if status == OUT_OF_DOMAIN or (strict and status == BORDERLINE)]


def radiographic_status(text: str) -> str:
    """"out_of_domain" if any term is, else "borderline" if any term is, else "radiographic"
    when the text names a vocabulary observation or a term of the radiology lists, else
    "unknown"."""
    statuses = {status for _, status in _classify_terms(text)}
    if OUT_OF_DOMAIN in statuses:
        return OUT_OF_DOMAIN
    if BORDERLINE in statuses:
        return BORDERLINE
    lower = text.lower()
    if concept_mentions(lower) or lexicon.term_spans(lower):
        return RADIOGRAPHIC
    return UNKNOWN


def is_radiographic(text: str, *, strict: bool = False) -> bool:
    """Whether ``text`` (an observation name or a phrase) is something a chest radiograph can
    show: it names no out-of-domain term (with ``strict``, no borderline one either)."""
    status = radiographic_status(text)
    if status == OUT_OF_DOMAIN:
        return False
    if status == BORDERLINE:
        return not strict
    return True
