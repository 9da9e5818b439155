"""RadGraph-schema entities and relations from the engine's findings, and short phrases.

Entities carry RadGraph's labels: ANAT-DP (anatomy), OBS-DP (observation definitely present),
OBS-U (uncertain), OBS-DA (definitely absent); relations are ``located_at`` (observation ->
anatomy), ``modify`` (a modifier -> what it modifies: a side -> its anatomy, a size -> its
observation) and ``suggestive_of`` (an observation -> the one it suggests: "opacity ... likely
pneumonia").

``Graph.to_radgraph()`` / ``graph_from_radgraph(annotation, text)`` convert to and from the
``radgraph`` package's dict (entities keyed by id with "tokens", "label", "start_ix", "end_ix"
(inclusive token indices) and "relations": [[type, target_id], ...]), so a radgraph-package
backend and this one are interchangeable downstream. ``graph_phrases(graph)`` works on either.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from workers.nlp.findings import ABSENT, PRESENT, UNCERTAIN, Finding, findings_tuple
from workers.nlp.sections import ParsedReport, parse_report
from workers.nlp.vocabulary import LATERALITY_RE, LOCATION_RE, NORMAL_PREDICATE_RE, SEVERITY_RE

ANAT_DP = "ANAT-DP"
OBS_DP = "OBS-DP"
OBS_U = "OBS-U"
OBS_DA = "OBS-DA"
LABELS = (ANAT_DP, OBS_DP, OBS_U, OBS_DA)
LOCATED_AT = "located_at"
MODIFY = "modify"
SUGGESTIVE_OF = "suggestive_of"
RELATIONS = (LOCATED_AT, MODIFY, SUGGESTIVE_OF)

_OBS_LABEL = {PRESENT: OBS_DP, UNCERTAIN: OBS_U, ABSENT: OBS_DA}
# radgraph's newer models spell labels out ("Observation::definitely present").
_LONG_LABELS = {
    "anatomy::definitely present": ANAT_DP, "anatomy::present": ANAT_DP,
    "observation::definitely present": OBS_DP, "observation::present": OBS_DP,
    "observation::uncertain": OBS_U, "observation::definitely absent": OBS_DA,
    "observation::absent": OBS_DA, "anatomy::uncertain": ANAT_DP,
    "anatomy::definitely absent": ANAT_DP,
}
_TOKEN_RE = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]")
_SUGGEST_RE = re.compile(
    r"\b(?:consistent with|compatible with|suggest\w*|may represent|could represent|represent\w*|"
    r"reflect\w*|likely|probabl[ey]|concerning for|suspicious for|worrisome for|due to|"
    r"secondary to|in keeping with|favou?r\w*|most likely)\b")
_ANATOMY_HEAD_RE = re.compile(
    r"\b(?:lungs?|lobes?|bases?|apex|apices|hil(?:um|a)|pleura|pleural space|hemithorax|"
    r"heart|mediastinum|ribs?|spine|clavicle|hemidiaphragm|diaphragm|lingula|midlung|"
    r"chest|aorta|trachea|zone|segment|fissure)\b")


@dataclass(frozen=True)
class Entity:
    id: str
    label: str
    tokens: str
    start: int
    end: int
    sentence_index: int


@dataclass(frozen=True)
class Relation:
    type: str
    source: str
    target: str


@dataclass(frozen=True)
class Graph:
    text: str
    entities: tuple[Entity, ...]
    relations: tuple[Relation, ...] = field(default=())

    def entity(self, entity_id: str) -> Entity:
        return next(e for e in self.entities if e.id == entity_id)

    def to_radgraph(self) -> dict:
        """The radgraph package's annotation dict for this graph."""
        offsets = _token_offsets(self.text)
        entities = {}
        for e in self.entities:
            start_ix, end_ix = _token_range(offsets, e.start, e.end)
            entities[e.id] = {
                "tokens": e.tokens, "label": e.label, "start_ix": start_ix, "end_ix": end_ix,
                "relations": [[r.type, r.target] for r in self.relations if r.source == e.id],
            }
        return {"text": " ".join(self.text[a:b] for a, b in offsets), "entities": entities,
                "data_source": None, "data_split": "inference"}

    def to_dict(self) -> dict:
        return self.to_radgraph()


def _token_offsets(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _TOKEN_RE.finditer(text)]


def _token_range(offsets: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    first = next((i for i, (a, b) in enumerate(offsets) if b > start), len(offsets) - 1)
    last = first
    for i in range(first, len(offsets)):
        if offsets[i][0] < end:
            last = i
        else:
            break
    return first, last


class _Builder:
    def __init__(self, text: str):
        self.text = text
        self.entities: list[Entity] = []
        self.relations: list[Relation] = []
        self.by_span: dict[tuple[int, int, str], str] = {}

    def entity(self, label: str, start: int, end: int, sentence_index: int) -> str:
        key = (start, end, label)
        if key in self.by_span:
            return self.by_span[key]
        entity_id = str(len(self.entities) + 1)
        self.entities.append(Entity(entity_id, label, self.text[start:end], start, end,
                                    sentence_index))
        self.by_span[key] = entity_id
        return entity_id

    def relate(self, kind: str, source: str, target: str) -> None:
        relation = Relation(kind, source, target)
        if source != target and relation not in self.relations:
            self.relations.append(relation)


def _clause_bounds(text: str, start: int, end: int, lo: int, hi: int) -> tuple[int, int]:
    left = lo
    for m in re.finditer(r"[;,]|\b(?:and|or|but|with|without|which)\b", text[lo:start]):
        left = lo + m.end()
    m = re.search(r"[;,]|\b(?:and|or|but|with|without|which)\b", text[end:hi])
    right = end + m.start() if m else hi
    return left, right


def _add_finding(b: _Builder, f: Finding, sentence_start: int, sentence_end: int) -> str:
    obs = b.entity(_OBS_LABEL[f.status], f.start, f.end, f.sentence_index)
    lower = b.text.lower()
    lo, hi = _clause_bounds(lower, f.start, f.end, sentence_start, sentence_end)
    # anatomy: location words and anatomical heads in the clause, outside the mention, one
    # entity per word as RadGraph does ("left" "lower" "lobe"); the last word is the head
    spans: list[tuple[int, int]] = []
    for regex in (LOCATION_RE, _ANATOMY_HEAD_RE, LATERALITY_RE):
        for m in regex.finditer(lower, lo, hi):
            if f.start <= m.start() < f.end:
                continue
            if any(a <= m.start() and m.end() <= z for a, z in spans):
                continue
            spans = [(a, z) for a, z in spans if not (m.start() <= a and z <= m.end())]
            spans.append(m.span())
    words = sorted((lo_w + w.start(), lo_w + w.end()) for lo_w, hi_w in spans
                   for w in re.finditer(r"[\w-]+", lower[lo_w:hi_w]))
    anatomy = [b.entity(ANAT_DP, a, z, f.sentence_index) for a, z in words]
    if anatomy:
        head = anatomy[-1]
        for a in anatomy[:-1]:
            b.relate(MODIFY, a, head)
        b.relate(LOCATED_AT, obs, head)
    for m in SEVERITY_RE.finditer(lower, lo, hi):
        if f.start <= m.start() < f.end:
            continue
        size = b.entity(_OBS_LABEL[f.status], m.start(), m.end(), f.sentence_index)
        b.relate(MODIFY, size, obs)
    return obs


@lru_cache(maxsize=4096)
def _extract(text: str) -> Graph:
    parsed = parse_report(text)
    b = _Builder(text)
    bounds = {s.index: (s.start, s.end) for s in parsed.sentences}
    previous: tuple[Finding, str] | None = None
    done_normals: set[tuple[int, int]] = set()
    for f in findings_tuple(text):
        if f.implied:
            if (f.start, f.end) not in done_normals:
                done_normals.add((f.start, f.end))
                _add_normal(b, f, *bounds[f.sentence_index])
            continue
        obs = _add_finding(b, f, *bounds[f.sentence_index])
        if previous and previous[0].sentence_index == f.sentence_index \
                and previous[0].end <= f.start \
                and _SUGGEST_RE.search(text.lower(), previous[0].end, f.start):
            b.relate(SUGGESTIVE_OF, previous[1], obs)
        previous = (f, obs)
    order = sorted(b.entities, key=lambda e: (e.start, e.end))
    renumber = {e.id: str(i + 1) for i, e in enumerate(order)}
    entities = tuple(Entity(renumber[e.id], e.label, e.tokens, e.start, e.end, e.sentence_index)
                     for e in order)
    relations = [Relation(r.type, renumber[r.source], renumber[r.target]) for r in b.relations]
    return Graph(text, entities, _sorted_relations(relations))


def _sorted_relations(relations) -> tuple[Relation, ...]:
    def key(r):
        return (int(r.source) if r.source.isdigit() else r.source, r.type,
                int(r.target) if r.target.isdigit() else r.target)
    try:
        return tuple(sorted(set(relations), key=key))
    except TypeError:  # mixed numeric and textual ids
        return tuple(sorted(set(relations), key=lambda r: (r.source, r.type, r.target)))


def _add_normal(b: _Builder, f: Finding, sentence_start: int, sentence_end: int) -> None:
    """A normal statement: "lungs" (ANAT-DP) <- located_at - "clear" (OBS-DP); a global one
    ("no acute cardiopulmonary abnormality") is one OBS-DA entity."""
    lower = b.text.lower()
    words = lower[f.start:f.end]
    if re.match(r"(?:no|without|negative for)\b", words):
        lead = re.match(r"(?:no|without|negative for)\s+", words)
        b.entity(OBS_DA, f.start + (lead.end() if lead else 0), f.end, f.sentence_index)
        return
    predicate = NORMAL_PREDICATE_RE.search(lower, sentence_start, sentence_end)
    if not predicate:
        return
    anatomy = b.entity(ANAT_DP, f.start, f.end, f.sentence_index)
    obs = b.entity(OBS_DP, predicate.start(), predicate.end(), f.sentence_index)
    b.relate(LOCATED_AT, obs, anatomy)


def extract_graph(text: str | ParsedReport) -> Graph:
    """The RadGraph-schema graph of a report or sentence (cached per text)."""
    return _extract(text.text if isinstance(text, ParsedReport) else text)


def graph_from_radgraph(annotation: dict, text: str) -> Graph:
    """A ``Graph`` from the radgraph package's annotation of ``text``.

    Token indices are mapped back onto ``text`` with the tokenizer of ``to_radgraph`` when the
    tokens agree; otherwise each entity's tokens are searched in ``text`` from the previous
    entity on. Long label names ("Observation::definitely present") are accepted.
    """
    offsets = _token_offsets(text)
    lower = text.lower()
    parsed = parse_report(text)
    raw = annotation.get("entities", annotation)
    items = sorted(raw.items(), key=lambda kv: (kv[1].get("start_ix", 0), kv[0]))
    entities = []
    relations = []
    cursor = 0
    for entity_id, e in items:
        label = e.get("label", "")
        label = _LONG_LABELS.get(label.lower(), label)
        tokens = str(e.get("tokens", ""))
        start = end = None
        si, ei = e.get("start_ix"), e.get("end_ix")
        if isinstance(si, int) and isinstance(ei, int) and 0 <= si <= ei < len(offsets):
            candidate = text[offsets[si][0]:offsets[ei][1]]
            if _norm(candidate) == _norm(tokens):
                start, end = offsets[si][0], offsets[ei][1]
        if start is None:
            found = lower.find(tokens.lower(), cursor)
            if found < 0:
                found = lower.find(tokens.lower())
            if found >= 0:
                start, end = found, found + len(tokens)
        if start is None:
            start = end = cursor
        cursor = max(cursor, start)
        sentence_index = next((s.index for s in parsed.sentences if s.start <= start < s.end),
                              parsed.sentences[-1].index if parsed.sentences else 0)
        entities.append(Entity(str(entity_id), label, text[start:end] or tokens, start, end,
                               sentence_index))
        for relation in e.get("relations", []):
            relations.append(Relation(relation[0], str(entity_id), str(relation[1])))
    return Graph(text, tuple(sorted(entities, key=lambda x: (x.start, x.end))),
                 _sorted_relations(relations))


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s.lower())


def graph_links(graph: Graph) -> tuple[dict[str, Entity], dict[str, list[str]],
                                       dict[str, list[tuple[str, str]]]]:
    """The entities by id, and each entity's relations between entities of the graph: the
    sources pointing at it, and (type, target) of those it points at."""
    by_id = {e.id: e for e in graph.entities}
    incoming: dict[str, list[str]] = {}
    outgoing: dict[str, list[tuple[str, str]]] = {}
    for r in graph.relations:
        if r.source in by_id and r.target in by_id:
            incoming.setdefault(r.target, []).append(r.source)
            outgoing.setdefault(r.source, []).append((r.type, r.target))
    return by_id, incoming, outgoing


def graph_phrases(graph: Graph) -> list[str]:
    """One short phrase per observation that is not itself a modifier: its modifiers, then its
    anatomy (with the anatomy's modifiers) in text order, then the observation; "no ..." for
    OBS-DA, "possible ..." for OBS-U. Works on built-in and radgraph-package graphs alike."""
    by_id, incoming, outgoing = graph_links(graph)
    phrases: dict[str, None] = {}
    for e in graph.entities:
        if e.label == ANAT_DP:
            continue
        if any(kind == MODIFY and by_id[t].label != ANAT_DP for kind, t in outgoing.get(e.id, [])):
            continue  # a size or descriptor of another observation
        modifiers = [by_id[m] for m in incoming.get(e.id, [])
                     if by_id[m].label != ANAT_DP and
                     any(k == MODIFY and t == e.id for k, t in outgoing.get(m, []))]
        anatomy: list[Entity] = []
        stack = [t for kind, t in outgoing.get(e.id, []) if kind == LOCATED_AT]
        seen = set()
        while stack:
            a = stack.pop()
            if a in seen:
                continue
            seen.add(a)
            anatomy.append(by_id[a])
            stack.extend(m for m in incoming.get(a, [])
                         if by_id[m].label == ANAT_DP and m not in seen)
        words = [m.tokens for m in sorted(modifiers, key=lambda x: x.start)]
        words += [a.tokens for a in sorted(anatomy, key=lambda x: x.start)
                  if not (e.start <= a.start < e.end)]
        words.append(e.tokens)
        phrase = " ".join(w.lower() for w in words)
        if e.label == OBS_DA:
            phrase = "no " + phrase
        elif e.label == OBS_U:
            phrase = "possible " + phrase
        phrases.setdefault(re.sub(r"\s+", " ", phrase).strip(), None)
    return list(phrases)
