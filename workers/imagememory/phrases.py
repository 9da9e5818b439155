"""RA-RRG key phrases: short statements taken from a report, comparisons to prior exams removed.

The paper turns RadGraph entities and relations into short phrases and has an LLM tidy them and
drop comparisons with earlier examinations ("unchanged", "improved", "again seen"), which a
system that sees one study cannot know. Here:

1. the extractor role gives the report's RadGraph-schema graph; ``graph_phrases`` turns each
   observation with its modifiers and anatomy into a phrase. With the built-in extractor the
   rule engine's own normalised phrases are used instead ("normal heart size", "small left
   pleural effusion"), which name the same findings in one consistent wording, so that phrases
   from different reports coincide;
2. the llm role, when one is configured, rewrites the list (``rarrg_key_phrases`` prompt);
3. whatever produced them, every phrase goes through ``remove_comparisons`` and phrases left
   empty, or made only of comparison words, are dropped.

Only the sections that describe the images (findings, impression, text outside any header)
feed phrases: an indication of "pneumonia" is a question, not a finding.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from workers import nlp
from workers.backends.roles import BUILTIN_ENGINE_NAME
from workers.backends.structured import complete_prompt
from workers.nlp import (
    COMPARATIVE_TERMS,
    extract_findings,
    find_comparisons,
    parse_report,
    remove_comparisons,
)
from workers.nlp.findings import IMAGE_SECTIONS
from workers.prompts import get_prompt

_JUNK_RE = re.compile(r"^[\s,.;:()\-]*$")


@dataclass(frozen=True)
class KeyPhrases:
    phrases: tuple[str, ...]
    prompt_version: str | None = None
    model: str | None = None


def image_text(report: str) -> str:
    """The report's findings, impression and unheaded text, in order."""
    parsed = parse_report(report)
    parts = [report[s.start:s.end].strip() for s in parsed.sections if s.name in IMAGE_SECTIONS]
    text = "\n".join(p for p in parts if p)
    return text or report.strip()


def clean_phrase(phrase: str) -> str:
    """Lower case, comparisons removed, spaces and punctuation tidied; "" when nothing is left."""
    original = " ".join(str(phrase).split())
    # A comparative word inside a finding's own name ("degenerative change") stays.
    text = original if _names_a_finding(original) else remove_comparisons(original)
    text = text.strip(" ,.;:").lower()
    text = re.sub(r"\s{2,}", " ", text)
    if not text or _JUNK_RE.match(text):
        return ""
    words = set(re.findall(r"[a-z]+", text))
    if words and words <= {t.lower() for t in COMPARATIVE_TERMS} | {"no", "is", "are", "the"}:
        return ""
    return text


def _names_a_finding(text: str) -> bool:
    """Whether a comparative term of ``text`` lies inside a finding's mention."""
    mentions = [(f.start, f.end) for f in extract_findings(text) if not f.implied]
    return any(a < end and start < b for start, end, _ in find_comparisons(text)
               for a, b in mentions)


def finding_key(text: str) -> frozenset:
    """What a phrase states: (observation, status, side, severity) of each of its findings."""
    return frozenset((f.observation, f.status, f.laterality, f.severity)
                     for f in extract_findings(text))


def covered(general: frozenset, specific: frozenset) -> bool:
    """Whether ``specific`` states every finding of ``general``, at least as precisely (same
    observation and status; the same side and size where ``general`` gives one)."""
    return bool(general) and all(
        any(o == o2 and s == s2 and side in (None, side2) and size in (None, size2)
            for o2, s2, side2, size2 in specific)
        for o, s, side, size in general)


def _dedupe(phrases) -> tuple[str, ...]:
    """Cleaned phrases, each finding once: a phrase that only repeats another, less precisely
    (the impression's "small effusions" after "small bilateral pleural effusions",
    "cardiomegaly" after "moderate cardiomegaly"), is dropped; a more precise one takes the
    place of the vaguer one seen first."""
    out: list[str] = []
    keys: list[frozenset] = []
    for phrase in phrases:
        cleaned = clean_phrase(phrase)
        if not cleaned or cleaned in out:
            continue
        key = finding_key(cleaned)
        if any(covered(key, other) for other in keys):
            continue
        vaguer = next((i for i, other in enumerate(keys) if covered(other, key)), None)
        if vaguer is not None:
            out[vaguer], keys[vaguer] = cleaned, key
            continue
        out.append(cleaned)
        keys.append(key)
    return tuple(out)


def rule_phrases(report: str, extractor=None) -> tuple[str, ...]:
    """Key phrases from the extractor's graph (or the rule engine's own phrases)."""
    text = image_text(report)
    if extractor is None or getattr(extractor, "name", None) == BUILTIN_ENGINE_NAME:
        return _dedupe(nlp.key_phrases(text))
    return _dedupe(nlp.graph_phrases(extractor.extract(text)))


def extract_key_phrases(report: str, extractor=None, llm=None) -> KeyPhrases:
    """The report's key phrases through the extractor and (when configured) llm roles."""
    phrases = rule_phrases(report, extractor)
    if llm is None:
        return KeyPhrases(phrases)

    value, provenance = complete_prompt(llm, get_prompt("rarrg_key_phrases"),
                                        report=image_text(report),
                                        phrases="\n".join(f"- {p}" for p in phrases) or "(none)")
    return KeyPhrases(_dedupe(value["phrases"]), provenance.prompt_version, provenance.model)
