"""Finding categories for per-category RadFlag thresholds (RadFlag's Appendix C, in spirit).

Six categories, decided in a fixed priority order when a sentence touches several: Devices,
Pleura, Cardiomediastinal, Musculoskeletal, Lungs, Other. Devices come first (a line in the
lung is a device statement), the lungs last (almost every sentence names a lung as a place).

``category_of`` takes a ``Finding`` (its observation's category) or a sentence. A sentence is
categorised by the findings it states explicitly; a sentence without one (a normal statement
such as "the heart is normal", a technique line) by the keyword lists below.
"""
from __future__ import annotations

import re

from workers.nlp.findings import Finding, findings_by_sentence, findings_tuple
from workers.nlp.sections import ParsedReport, as_parsed
from workers.nlp.vocabulary import (
    CARDIOMEDIASTINAL,
    DEVICES,
    LUNGS,
    MUSCULOSKELETAL,
    OTHER,
    PLEURA,
)

PRIORITY = (DEVICES, PLEURA, CARDIOMEDIASTINAL, MUSCULOSKELETAL, LUNGS, OTHER)

KEYWORDS: dict[str, tuple[str, ...]] = {
    DEVICES: ("tube", "tubes", "line", "lines", "catheter", "catheters", "picc", "port",
              "pacemaker", "pacer", "aicd", "defibrillator", "lead", "leads", "wire", "wires",
              "clip", "clips", "stent", "stents", "device", "devices", "drain", "hardware",
              "prosthesis", "prosthetic", "valve replacement", "sternotomy", "tip", "generator",
              "electrode", "electrodes", "monitor", "shunt", "implant", "implants"),
    PLEURA: ("pleura", "pleural", "effusion", "effusions", "pneumothorax", "pneumothoraces",
             "costophrenic", "hemothorax", "empyema", "fissure", "fissural", "pleural space",
             "pleural spaces"),
    CARDIOMEDIASTINAL: ("heart", "cardiac", "cardiomegaly", "cardiomediastinal", "mediastinum",
                        "mediastinal", "aorta", "aortic", "hilar", "hila", "hilum",
                        "pericardial", "trachea", "tracheal", "paratracheal", "vascular",
                        "vasculature", "vascularity"),
    MUSCULOSKELETAL: ("rib", "ribs", "fracture", "fractures", "spine", "spinal", "vertebral",
                      "vertebra", "vertebrae", "osseous", "bone", "bones", "bony", "skeletal",
                      "clavicle", "scapula", "shoulder", "humerus", "humeral", "sternum",
                      "scoliosis", "kyphosis", "degenerative", "osteophyte", "osteophytes",
                      "spondylosis", "osteopenia", "thoracolumbar"),
    LUNGS: ("lung", "lungs", "pulmonary", "lobe", "lobar", "opacity", "opacities",
            "consolidation", "atelectasis", "pneumonia", "edema", "nodule", "nodules", "mass",
            "granuloma", "airspace", "air space", "interstitial", "infiltrate", "infiltrates",
            "emphysema", "hyperinflation", "hyperinflated", "scarring", "cardiopulmonary",
            "parenchyma", "bronchial", "airway", "apex", "apical", "basilar", "bibasilar"),
}
_KEYWORD_RES = {
    category: re.compile(r"\b(?:" + "|".join(sorted((re.escape(w) for w in words), key=len,
                                                    reverse=True)) + r")\b")
    for category, words in KEYWORDS.items()
}


def _first(categories) -> str:
    present = set(categories)
    return next((c for c in PRIORITY if c in present), OTHER)


def category_by_keywords(text: str) -> str:
    lower = text.lower()
    return _first(c for c, regex in _KEYWORD_RES.items() if regex.search(lower))


def _from_findings(findings, text: str) -> str:
    explicit = [f for f in findings if not f.implied]
    if explicit:
        stated = [f for f in explicit if f.status != "absent"] or explicit
        return _first(f.category for f in stated)
    return category_by_keywords(text)


def category_of(sentence_or_finding: str | Finding) -> str:
    """"Devices", "Cardiomediastinal", "Lungs", "Musculoskeletal", "Pleura" or "Other"."""
    if isinstance(sentence_or_finding, Finding):
        return sentence_or_finding.category
    return _from_findings(findings_tuple(sentence_or_finding), sentence_or_finding)


def sentence_categories(report: str | ParsedReport) -> dict[int, str]:
    """The category of every sentence of ``report``, from the report's own findings (the
    sentence read in its report, not alone)."""
    parsed = as_parsed(report)
    grouped = findings_by_sentence(parsed)
    return {s.index: _from_findings(grouped[s.index], s.text) for s in parsed.sentences}
