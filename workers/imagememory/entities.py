"""V-RAG's disease entities: which findings a report names, and what a report says about one.

An entity is an observation of the extractor's graph (RadGraph schema: OBS-DP / OBS-U /
OBS-DA) that the rule engine's vocabulary knows as an abnormality or a device; its phrase
carries its modifiers and anatomy ("small left pleural effusion"). V-RAG probes each entity
once, under its *shortest terminal sub-phrase seen in the library*: "left lower lobe
atelectasis" becomes "atelectasis" when some reference report names plain atelectasis, so
that one question covers every way the reports phrase it. A shorter phrase is only taken when
it still names the same observation ("effusion" is never the sub-phrase of "pericardial
effusion" standing for a pleural effusion).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from workers.nlp import extract_findings, extract_graph, graph_phrases
from workers.nlp.findings import IMAGE_SECTIONS
from workers.nlp.graph import Graph, graph_links
from workers.nlp.vocabulary import CONCEPT_BY_NAME, ancestors

PRESENT = "present"
ABSENT = "absent"
UNCERTAIN = "uncertain"
_LABEL_STATUS = {"OBS-DP": PRESENT, "OBS-U": UNCERTAIN, "OBS-DA": ABSENT}
_PREFIX_RE = re.compile(r"^(?:no|possible)\s+")


@dataclass(frozen=True)
class EntityMention:
    phrase: str          # with modifiers and anatomy, without "no" / "possible"
    observation: str     # the vocabulary observation ("pleural effusion")
    status: str          # as this mention states it
    sentence_index: int
    start: int
    end: int


@lru_cache(maxsize=8192)
def observation_of(phrase: str) -> str | None:
    """The vocabulary observation a phrase names, when it names exactly one abnormality or
    device; None otherwise (normal statements, anatomy, look-alikes such as nipple shadows)."""

    observations = {f.observation for f in extract_findings(phrase) if not f.implied}
    if len(observations) != 1:
        return None
    observation = observations.pop()
    concept = CONCEPT_BY_NAME.get(observation)
    if concept is None or not (concept.abnormal or concept.device):
        return None
    return observation


def _entity_phrase(graph, entity, by_id, incoming, outgoing) -> str:
    """The phrase ``graph_phrases`` would give this entity alone (its modifiers and anatomy)."""

    keep = {entity.id}
    keep.update(m for m in incoming.get(entity.id, ())
                if by_id[m].label != "ANAT-DP")
    stack = [t for kind, t in outgoing.get(entity.id, ()) if kind == "located_at"]
    while stack:
        anatomy = stack.pop()
        if anatomy in keep:
            continue
        keep.add(anatomy)
        stack.extend(m for m in incoming.get(anatomy, ()) if by_id[m].label == "ANAT-DP")
    sub = Graph(graph.text, tuple(e for e in graph.entities if e.id in keep),
                tuple(r for r in graph.relations if r.source in keep and r.target in keep))
    phrases = graph_phrases(sub)
    tokens = " ".join(entity.tokens.lower().split())
    phrase = next((p for p in phrases if p.endswith(tokens)), tokens)
    return _PREFIX_RE.sub("", phrase).strip()


def extract_entities(report: str, extractor=None) -> list[EntityMention]:
    """The disease entities a report names (extractor role; the rule engine when None)."""
    if extractor is None:
        graph = extract_graph(report)
    else:
        graph = extractor.extract(report)
    by_id, incoming, outgoing = graph_links(graph)
    mentions = []
    for entity in graph.entities:
        status = _LABEL_STATUS.get(entity.label)
        if status is None:
            continue
        if any(kind == "modify" and by_id[t].label != "ANAT-DP"
               for kind, t in outgoing.get(entity.id, ())):
            continue  # a size or descriptor of another observation
        observation = observation_of(" ".join(entity.tokens.lower().split()))
        if observation is None:
            continue
        phrase = _entity_phrase(graph, entity, by_id, incoming, outgoing)
        mentions.append(EntityMention(phrase, observation, status, entity.sentence_index,
                                      entity.start, entity.end))
    return mentions


def library_entities(report: str, extractor=None) -> tuple[str, ...]:
    """The entity phrases a reference report contributes to the library's vocabulary: each
    mention's phrase and its bare words."""
    out: dict[str, None] = {}
    for mention in extract_entities(report, extractor):
        out.setdefault(mention.phrase, None)
        out.setdefault(mention.observation, None)
    return tuple(out)


def shortest_library_subphrase(phrase: str, vocabulary, observation: str | None = None) -> str:
    """The shortest tail of ``phrase`` (word-wise) that the library names and that still
    names the same observation; ``phrase`` itself when none does."""
    words = phrase.split()
    observation = observation or observation_of(phrase)
    for start in range(len(words) - 1, -1, -1):
        candidate = " ".join(words[start:])
        if candidate in vocabulary and (observation is None
                                        or observation_of(candidate) == observation):
            return candidate
    return phrase


def _combine(old: str | None, new: str) -> str:
    if old is None:
        return new
    if PRESENT in (old, new):
        return PRESENT
    if UNCERTAIN in (old, new):
        return UNCERTAIN
    return ABSENT


def statement(report: str, observation: str) -> str | None:
    """What a report says about an observation: "present", "absent", "uncertain" or None (not
    mentioned). A present child implies its parent ("pneumonia" → opacity present); an absent
    parent implies its children absent ("no opacity" → no pneumonia); a positive mention beats
    negative ones, as in the CheXpert labeler."""
    return status_in(statements(report), observation)


def status_in(said: dict[str, str], observation: str) -> str | None:
    """``statement`` from a report's ``said_of`` (a study context's findings, read once)."""
    return said.get(observation) or _via_hierarchy(said, observation)


def said_of(findings) -> dict[str, str]:
    """observation → what these findings of one report say of it, in the image sections."""
    said: dict[str, str] = {}
    for f in findings:
        if f.section in IMAGE_SECTIONS:
            said[f.observation] = _combine(said.get(f.observation), f.status)
    return said


@lru_cache(maxsize=4096)
def statements(report: str) -> dict[str, str]:
    return said_of(extract_findings(report))


def _via_hierarchy(said: dict[str, str], observation: str) -> str | None:
    result = None
    for other, status in said.items():
        if observation in ancestors(other) and status in (PRESENT, UNCERTAIN):
            result = _combine(result, status)
        elif other in ancestors(observation) and status == ABSENT:
            result = _combine(result, ABSENT)
    return result


def question_for(phrase: str) -> str:
    """"Is there a pleural effusion?", "Are there pleural effusions?", "Is there cardiomegaly?"."""

    words = phrase.split()
    plural = words and words[-1].endswith("s") and not words[-1].endswith(("ss", "sis", "us"))
    if plural:
        return f"Are there {phrase}?"
    mass_nouns = {"cardiomegaly", "edema", "atelectasis", "consolidation", "pneumothorax",
                  "emphysema", "hyperinflation", "scarring", "fibrosis", "scoliosis",
                  "kyphosis", "calcification", "atherosclerosis", "lymphadenopathy",
                  "pneumonia", "pneumomediastinum", "pneumoperitoneum", "hypoinflation"}
    if words and (words[-1] in mass_nouns or phrase in CONCEPT_BY_NAME and
                  phrase.endswith(("ia", "ly", "sis"))):
        return f"Is there {phrase}?"
    article = "an" if phrase[:1] in "aeiou" else "a"
    return f"Is there {article} {phrase}?"
