"""The hierarchy of what a report states, read from ``rules/hierarchy.tsv`` (issue 31).

One file a clinician can read and extend holds every relation the comparing checks use: which
finding is a narrower one of which ("a mass is a focal lung lesion"), which are close, what a
normal statement is contradicted by ("clear lungs" by a consolidation, an edema, an airspace
opacity), which prior findings the next report must address, and where tubes and lines belong.
``vocabulary.PARENTS`` and ``vocabulary.SIMILAR`` are its ``is_a`` and ``similar`` rows; the
statement model (``workers/nlp/statements.py``), the contradiction detector and the prior
report checks ask the functions below. No check keeps a list of word pairs of its own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

HIERARCHY_FILE = Path(__file__).with_name("rules") / "hierarchy.tsv"
RELATIONS = ("finding", "is_a", "similar", "loose", "reading", "summary", "follow_up",
             "addressed_by", "device_kind", "place", "written", "expected_at", "wrong_at", "near")


class HierarchyError(ValueError):
    """A malformed row of the hierarchy file; the message names the line."""


@dataclass(frozen=True)
class Hierarchy:
    findings: dict[str, str]
    parents: dict[str, tuple[str, ...]]
    similar: tuple[frozenset[str], ...]
    loose: frozenset[str]
    readings: frozenset[frozenset[str]]
    summaries: dict[str, tuple[str, ...]]
    follow_up: frozenset[str]
    addressed_by: dict[str, tuple[str, ...]]
    places: dict[str, str | None]
    written: dict[str, str]
    expected_at: dict[str, frozenset[str]]
    wrong_at: dict[str, frozenset[str]]
    near: frozenset[frozenset[str]]
    device_kinds: dict[str, str]

    @property
    def nodes(self) -> frozenset[str]:
        """Every name the file mentions as a finding, a summary or a place."""
        names: set[str] = set(self.findings) | set(self.parents) | set(self.summaries) \
            | set(self.places)
        for parents in self.parents.values():
            names.update(parents)
        for members in self.summaries.values():
            names.update(members)
        for group in self.similar:
            names.update(group)
        names.update(self.follow_up)
        names.update(self.addressed_by)
        names.update(self.expected_at)
        names.update(self.wrong_at)
        names.update(self.loose)
        for group in self.readings:
            names.update(group)
        names.update(self.device_kinds.values())
        return frozenset(names)


def load_hierarchy(path: Path = HIERARCHY_FILE) -> Hierarchy:
    """Read the hierarchy file (comments start with '#'; the first other line is the header)."""
    findings: dict[str, str] = {}
    parents: dict[str, list[str]] = {}
    similar: list[frozenset[str]] = []
    summaries: dict[str, list[str]] = {}
    follow_up: set[str] = set()
    addressed: dict[str, list[str]] = {}
    places: dict[str, str | None] = {}
    written: dict[str, str] = {}
    expected: dict[str, set[str]] = {}
    wrong: dict[str, set[str]] = {}
    near: set[frozenset[str]] = set()
    loose: set[str] = set()
    readings: set[frozenset[str]] = set()
    kinds: dict[str, str] = {}
    header_seen = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        if not header_seen:
            header_seen = True
            continue
        parts = line.split("\t")
        if len(parts) < 3 or parts[0] not in RELATIONS or not parts[1] or not parts[2]:
            raise HierarchyError(f"{path.name}:{number}: expected 'relation<TAB>concept<TAB>"
                                 f"other<TAB>why' with a relation of {RELATIONS}")
        relation, concept, other = parts[0], parts[1], parts[2]
        if relation == "finding":
            findings[concept] = other
        elif relation == "is_a":
            parents.setdefault(concept, []).append(other)
        elif relation == "similar":
            similar.append(frozenset((concept, other)))
        elif relation == "loose":
            loose.add(concept)
        elif relation == "reading":
            readings.add(frozenset((concept, other)))
        elif relation == "device_kind":
            kinds[concept] = other
        elif relation == "summary":
            summaries.setdefault(concept, []).append(other)
        elif relation == "follow_up":
            follow_up.add(concept)
        elif relation == "addressed_by":
            addressed.setdefault(concept, []).append(other)
        elif relation == "place":
            places[concept] = None if other == "-" else other
        elif relation == "written":
            written[concept] = other
        elif relation == "expected_at":
            expected.setdefault(concept, set()).add(other)
        elif relation == "wrong_at":
            wrong.setdefault(concept, set()).add(other)
        else:
            near.add(frozenset((concept, other)))
    return Hierarchy(findings, {k: tuple(v) for k, v in parents.items()}, tuple(similar),
                     frozenset(loose), frozenset(readings),
                     {k: tuple(v) for k, v in summaries.items()}, frozenset(follow_up),
                     {k: tuple(v) for k, v in addressed.items()}, places, written,
                     {k: frozenset(v) for k, v in expected.items()},
                     {k: frozenset(v) for k, v in wrong.items()}, frozenset(near), kinds)


HIERARCHY = load_hierarchy()


# ---- findings ------------------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def broader(concept: str) -> frozenset[str]:
    """Every concept that ``concept`` is a narrower one of (not itself)."""
    out: set[str] = set()
    stack = list(HIERARCHY.parents.get(concept, ()))
    while stack:
        parent = stack.pop()
        if parent not in out:
            out.add(parent)
            stack.extend(HIERARCHY.parents.get(parent, ()))
    return frozenset(out)


def is_a(concept: str, other: str) -> bool:
    """``concept`` is ``other`` or a narrower finding of it ("mass" is a "lesion")."""
    return concept == other or other in broader(concept)


def close(a: str, b: str) -> bool:
    """Listed as ``similar``."""
    return any(a in group and b in group for group in HIERARCHY.similar)


def overlapping(a: str, b: str) -> bool:
    """Two findings one statement may say of what the other says: the same, one narrower than
    the other (under a broader finding that names, not a ``loose`` word that describes), or
    close."""
    if a == b or close(a, b):
        return True
    return (b in broader(a) and b not in HIERARCHY.loose) \
        or (a in broader(b) and a not in HIERARCHY.loose)


def loose(concept: str) -> bool:
    """A broad word that describes before it names ("opacity"): its denial or its change says
    nothing of the narrower findings under it."""
    return concept in HIERARCHY.loose


def readings_of_one(a: str, b: str) -> bool:
    """Two readings of one thing at one place: a ``reading`` row, or a loose broad word and a
    narrower finding ("left lower lobe opacity" and "left lower lobe pneumonia")."""
    if a == b:
        return False
    if frozenset((a, b)) in HIERARCHY.readings:
        return True
    return (loose(a) and a in broader(b)) or (loose(b) and b in broader(a))


@lru_cache(maxsize=256)
def contradicting(summary: str) -> frozenset[str]:
    """The findings whose statement contradicts the normal statement ``summary`` (its rows
    and those of the summaries it includes); a finding narrower than one of them does too
    (``contradicts``)."""
    out: set[str] = set()
    for member in HIERARCHY.summaries.get(summary, ()):
        if member in HIERARCHY.summaries:
            out |= contradicting(member)
        else:
            out.add(member)
    return frozenset(out)


def contradicts(summary: str, concept: str) -> bool:
    """A stated ``concept`` contradicts the normal statement ``summary``: it is one of the
    summary's findings or a narrower finding of one (not through a loose word: a big heart is
    no widened mediastinum)."""
    members = contradicting(summary)
    return concept in members or bool({b for b in broader(concept) if not loose(b)} & members)


def needs_follow_up(concept: str) -> bool:
    return concept in HIERARCHY.follow_up


def addressing_words(concept: str) -> tuple[str, ...]:
    return HIERARCHY.addressed_by.get(concept, ())


# ---- places -------------------------------------------------------------------------------------

def _written_re(names) -> tuple[re.Pattern, dict[str, str]]:
    """One alternation of the ``written`` forms of ``names``, the longest wording first."""
    parts = []
    for k, name in enumerate(names):
        forms = HIERARCHY.written[name]
        parts.append((max(len(f) for f in forms.split("|")), k, name, forms))
    parts.sort(key=lambda p: (-p[0], p[1]))
    groups = "|".join(f"(?P<w{k}>{forms})" for _, k, _, forms in parts)
    return (re.compile(rf"\b(?:{groups})\b", re.IGNORECASE),
            {f"w{k}": name for _, k, name, _ in parts})


_PLACE_RE, _PLACE_NAMES = _written_re([n for n in HIERARCHY.written if n in HIERARCHY.places])
_KIND_RE, _KIND_NAMES = _written_re([n for n in HIERARCHY.written if n in HIERARCHY.device_kinds])


def places_in(text: str) -> list[tuple[str, int, int]]:
    """(place, start, end) of each place the file names in ``text``, longest wording first."""
    return [(_PLACE_NAMES[m.lastgroup], m.start(), m.end()) for m in _PLACE_RE.finditer(text)]


def device_kinds(device: str, words: str) -> frozenset[str]:
    """The kinds of ``device`` its words name ("right IJ catheter" -> {"jugular line"});
    two statements whose kinds do not meet are about two devices."""
    return frozenset(_KIND_NAMES[m.lastgroup] for m in _KIND_RE.finditer(words)
                     if HIERARCHY.device_kinds[_KIND_NAMES[m.lastgroup]] == device)


def within(place: str, other: str) -> bool:
    """``place`` is ``other`` or inside it ("lower superior vena cava" in the "superior vena
    cava")."""
    return other in _up(place)


def _up(place: str | None) -> list[str]:
    out = []
    while place is not None and place not in out:
        out.append(place)
        place = HIERARCHY.places.get(place)
    return out


def places_agree(a: str, b: str) -> bool:
    """Two reports of one tip's place can both be right: one place inside the other, or two
    places that touch (``near``)."""
    if within(a, b) or within(b, a):
        return True
    return any(frozenset((x, y)) in HIERARCHY.near for x in _up(a) for y in _up(b))


def position_verdict(device: str, place: str) -> str | None:
    """"expected" when ``device`` belongs at ``place`` (or a place inside one it belongs
    at), "wrong" when it does not belong there, None when the file does not say."""
    for p in _up(place):
        if p in HIERARCHY.wrong_at.get(device, ()):
            return "wrong"
        if p in HIERARCHY.expected_at.get(device, ()):
            return "expected"
    return None
