"""Finding extraction: what each sentence says about which observation, and how sure it is.

``extract_findings(report)`` returns one ``Finding`` per mention of a vocabulary observation
(workers/nlp/vocabulary.py) plus the absent findings implied by normal statements ("lungs are
clear" states opacity, consolidation, edema, ... absent; "no acute cardiopulmonary
abnormality" the acute observations). Status comes from ConText with radiology rules
(workers/nlp/context.py):

* a negation cue in scope -> "absent";
* a possibility cue ("may", "possible", "cannot be excluded", "versus", ...) or a clinical
  question ("evaluate for") -> "uncertain";
* a probability cue ("likely", "consistent with", "compatible with") -> ``PROBABLE_STATUS``
  ("present": the CheXpert labeler's reading of "consistent with" and of the radiologist's
  leaning; see docs/nlp.md for the measurement);
* none -> "present".

Laterality, severity and location come from the mention's own clause; the comparison cue from
its sentence. Results are cached per report text, so repeated calls (entailment against many
samples, labels, graph, key phrases) pay the extraction once.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from workers.nlp import context as ctx
from workers.nlp.harm import harm_of
from workers.nlp.sections import IMAGE_SECTIONS as IMAGE_SECTIONS  # where callers look for it
from workers.nlp.sections import ParsedReport, Sentence, as_parsed
from workers.nlp.vocabulary import (
    ACUTE_OBS,
    BONE_OBS,
    BORDERLINE_NORMAL_RE,
    CONCEPT_BY_NAME,
    DEVICE_TIP_OWNER_RE,
    GLOBAL_BONE_PHRASE,
    GLOBAL_BONE_RE,
    GLOBAL_NORMAL_PHRASE,
    GLOBAL_NORMAL_RE,
    LATERALITY_RE,
    LOCATION_NAMES,
    LOCATION_RE,
    LUNG_SITES,
    NON_LUNG_SITES,
    NORMAL_BUT_INTACT_RE,
    NORMAL_PREDICATE_RE,
    NORMAL_SUBJECTS,
    NOT_NORMAL_RE,
    SEVERITY_RE,
    comparison_cue,
    concept_mentions,
    mentions_concept,
    severity_of,
)
from workers.types import Harm

PRESENT = "present"
ABSENT = "absent"
UNCERTAIN = "uncertain"
STATUSES = (PRESENT, ABSENT, UNCERTAIN)

PROBABLE_STATUS = PRESENT

_STATUS_OF_CATEGORY = {
    ctx.NEGATED: ABSENT,
    ctx.POSSIBLE: UNCERTAIN,
    ctx.HYPOTHETICAL: UNCERTAIN,
    ctx.HISTORICAL: UNCERTAIN,  # as before it was answered apart from a clinical question
    ctx.PROBABLE: PROBABLE_STATUS,
    None: PRESENT,
}

_CLAUSE_BREAK_RE = re.compile(
    r"[;,:]|\b(?:and|or|but|with|without|which|while|whereas|although|however|as well as)\b")


@dataclass(frozen=True)
class Finding:
    """One statement about one observation.

    ``start``/``end``: the mention's character span in the report (for a finding implied by a
    normal statement, the span of the words that imply it). ``section``: the section the
    sentence is in. ``text``: the mention's words. ``cue``: the words that decided the status
    (a ConText cue, a normal statement), or None for a plain affirmation.
    """

    sentence_index: int
    observation: str
    status: str
    laterality: str | None
    severity: str | None
    location: str | None
    comparison: str | None
    start: int
    end: int
    category: str
    harm: Harm
    section: str = "findings"
    text: str = ""
    cue: str | None = field(default=None, compare=False)
    implied: bool = field(default=False, compare=False)

    @property
    def labels(self) -> tuple[str, ...]:
        """The CheXpert labels this finding speaks to (none for a lung observation placed
        outside the lungs, e.g. "mediastinal mass")."""
        concept = CONCEPT_BY_NAME[self.observation]
        if concept.lung and self.location in NON_LUNG_SITES:
            return ()
        return concept.labels

    def to_dict(self) -> dict:
        return {
            "sentence": self.sentence_index, "observation": self.observation,
            "status": self.status, "laterality": self.laterality, "severity": self.severity,
            "location": self.location, "comparison": self.comparison, "start": self.start,
            "end": self.end, "category": self.category, "harm": self.harm.value,
            "section": self.section, "text": self.text, "implied": self.implied,
        }


def _clause(lower: str, start: int, end: int) -> tuple[int, int]:
    """The clause of ``lower`` around ``[start, end)``: between the nearest breaks. A clause
    before "and" / "or" / "," that names no observation but only sides, sizes or places
    belongs to the next one ("moderate right and small left pleural effusions")."""
    breaks = [m for m in _CLAUSE_BREAK_RE.finditer(lower, 0, start)]
    left = breaks[-1].end() if breaks else 0
    while breaks and breaks[-1].group() in ("and", "or", ","):
        previous_start = breaks[-2].end() if len(breaks) > 1 else 0
        segment = lower[previous_start:breaks[-1].start()]
        if mentions_concept(segment) or not (LATERALITY_RE.search(segment)
                                              or SEVERITY_RE.search(segment)
                                              or LOCATION_RE.search(segment)):
            break
        left = previous_start
        breaks.pop()
    m = _CLAUSE_BREAK_RE.search(lower, end)
    right = m.start() if m else len(lower)
    return left, right


def clause_span(lower: str, start: int, end: int) -> tuple[int, int]:
    """The clause of a mention (``_clause``), for the statement model."""
    return _clause(lower, start, end)


_BOTH_SIDES_RE = re.compile(r"\b(?:right|left) (?:greater|more|worse) than (?:left|right)\b")


def _laterality(text: str) -> str | None:
    if _BOTH_SIDES_RE.search(text):
        return "bilateral"
    sides = set()
    for m in LATERALITY_RE.finditer(text):
        sides.add(m.lastgroup)
    if not sides:
        return None
    if "bilateral" in sides or {"left", "right"} <= sides:
        return "bilateral"
    return sides.pop()


def _severity(text: str) -> str | None:
    m = SEVERITY_RE.search(text)
    return severity_of(m) if m else None


def _location(text: str, skip: tuple[int, int] | None = None) -> str | None:
    inside = None
    for m in LOCATION_RE.finditer(text):
        name = LOCATION_NAMES[m.lastgroup]
        if skip and m.start() >= skip[0] and m.end() <= skip[1]:
            inside = inside or name
            continue
        return name
    return inside


def _location_outside(text: str, mention: tuple[int, int]) -> str | None:
    """A device's location, never read from its own name ("central venous catheter")."""
    for m in LOCATION_RE.finditer(text):
        if not (m.start() >= mention[0] and m.end() <= mention[1]):
            return LOCATION_NAMES[m.lastgroup]
    return None


# The attributes of a mention depend only on its sentence's words, and reports repeat sentences
# ("No pneumothorax.", "Heart size is normal."), so they are worked out once per sentence text.
@lru_cache(maxsize=16384)
def _attributes(lower: str, observation: str, rel: tuple[int, int],
                attributes_from: tuple[int, int] | None
                ) -> tuple[str | None, str | None, str | None]:
    """(laterality, severity, location) of the mention ``rel`` of ``observation``."""
    concept = CONCEPT_BY_NAME[observation]
    c_start, c_end = attributes_from or _clause(lower, *rel)
    clause = lower[c_start:c_end]
    rel_in_clause = (rel[0] - c_start, rel[1] - c_start)
    location = (_location_outside(clause, rel_in_clause) if concept.device
                else _location(clause, rel_in_clause))
    if concept.lung and location in NON_LUNG_SITES:
        # "mediastinal mass" is not a lung lesion, but "right lung base mass" is
        if any(LOCATION_NAMES[m.lastgroup] in LUNG_SITES for m in LOCATION_RE.finditer(clause)) \
                or re.search(r"\b(?:lungs?|pulmonary|lobe)\b", clause):
            location = next((LOCATION_NAMES[m.lastgroup] for m in LOCATION_RE.finditer(clause)
                             if LOCATION_NAMES[m.lastgroup] in LUNG_SITES), "lung")
    return _laterality(clause), _severity(clause), location


def _make(sentence: Sentence, observation: str, status: str, rel: tuple[int, int],
          lower: str, cue: str | None, comparison: str | None,
          attributes_from: tuple[int, int] | None = None, implied: bool = False) -> Finding:
    concept = CONCEPT_BY_NAME[observation]
    laterality, severity, location = _attributes(lower, observation, rel, attributes_from)
    return Finding(
        sentence_index=sentence.index, observation=observation, status=status,
        laterality=laterality, severity=severity, location=location,
        comparison=comparison, start=sentence.start + rel[0], end=sentence.start + rel[1],
        category=concept.category, harm=harm_of(observation, status), section=sentence.section,
        text=sentence.text[rel[0]:rel[1]], cue=cue, implied=implied,
    )


def _normal_findings(sentence: Sentence, lower: str, mentioned: set[str],
                     comparison: str | None) -> list[Finding]:
    """Absent findings implied by normal statements in one sentence."""
    out: list[Finding] = []
    added = set(mentioned)

    statements = _normal_statements(lower)
    cues = {cue for _, _, cue in statements}

    def add(observations, m, cue):
        # "Mediastinal and hilar contours are normal": "hilar" names another structure the
        # sentence calls normal, not a place that narrows the mediastinum's statement
        others = {_SUBJECT_PLACES.get(c) for c in cues - {cue}} - {None}
        for obs in observations:
            if obs in added:
                continue
            added.add(obs)
            finding = _make(sentence, obs, ABSENT, (m.start(), m.end()), lower, cue, comparison,
                            attributes_from=(0, len(lower)), implied=True)
            if finding.location in others:
                finding = replace(finding, location=_SUBJECT_PLACES.get(cue))
            out.append(finding)

    for observations, m, cue in statements:
        add(observations, m, cue)
    return out


# The place a structure's own name is read as, for the normal statements about a structure
_SUBJECT_PLACES = {"normal hila": "perihilar", "normal mediastinum": "mediastinum"}


@lru_cache(maxsize=16384)
def _normal_statements(lower: str) -> tuple[tuple[tuple[str, ...], re.Match, str], ...]:
    """(observations, match, cue) of each normal statement of one sentence, in the order
    ``_normal_findings`` adds them (cached per sentence text: reports repeat them)."""
    out = []
    g = GLOBAL_NORMAL_RE.search(lower)
    if g:
        out.append((ACUTE_OBS, g, GLOBAL_NORMAL_PHRASE))
    b = GLOBAL_BONE_RE.search(lower)
    if b:
        out.append((BONE_OBS, b, GLOBAL_BONE_PHRASE))
    if NORMAL_PREDICATE_RE.search(lower) and not NOT_NORMAL_RE.search(lower):
        only_intact = not NORMAL_BUT_INTACT_RE.search(lower)
        for subject_re, observations, phrase in NORMAL_SUBJECTS:
            if only_intact and observations != BONE_OBS:
                continue
            s = subject_re.search(lower)
            if s:
                out.append((observations, s, phrase))
    return tuple(out)


@lru_cache(maxsize=16384)
def _comparison(lower: str) -> str | None:
    return comparison_cue(lower)


def _sentence_findings(parsed: ParsedReport) -> list[Finding]:
    text = parsed.text
    mentions = []  # (sentence, lower, concept, rel_start, rel_end)
    for sentence in parsed.sentences:
        lower = sentence.text.lower()
        for concept, a, b in concept_mentions(lower):
            mentions.append((sentence, lower, concept, a, b))
    assertions = ctx.assert_targets(
        text, [(s.start, s.end) for s in parsed.sentences],
        [(s.start + a, s.start + b) for s, _, _, a, b in mentions])

    findings: list[Finding] = []
    by_sentence: dict[int, list[Finding]] = {}
    comparisons: dict[int, str | None] = {}
    for (sentence, lower, concept, a, b), assertion in zip(mentions, assertions):
        status = _STATUS_OF_CATEGORY.get(assertion.category, PRESENT)
        if status != ABSENT and BORDERLINE_NORMAL_RE.search(lower, a, b):
            status = UNCERTAIN
        elif status == ABSENT and concept.device and DEVICE_TIP_OWNER_RE.search(lower, 0, a):
            status = PRESENT
        if sentence.index not in comparisons:
            comparisons[sentence.index] = _comparison(lower)
        finding = _make(sentence, concept.name, status, (a, b), lower, assertion.cue,
                        comparisons[sentence.index])
        by_sentence.setdefault(sentence.index, []).append(finding)

    for sentence in parsed.sentences:
        lower = sentence.text.lower()
        own = by_sentence.get(sentence.index, [])
        own = _explain_away(own)
        if sentence.index not in comparisons:
            comparisons[sentence.index] = _comparison(lower)
        normals = _normal_findings(sentence, lower, {f.observation for f in own},
                                   comparisons[sentence.index])
        findings.extend(_dedupe(own))
        findings.extend(normals)
    findings.sort(key=lambda f: (f.sentence_index, f.start))
    return findings


def _explain_away(findings: list[Finding]) -> list[Finding]:
    """A lung nodule or opacity that the sentence explains as a look-alike ("nodular opacities
    likely nipple shadows") is not asserted present."""
    if not any(not CONCEPT_BY_NAME[f.observation].abnormal for f in findings):
        return findings
    out = []
    for f in findings:
        if f.status == PRESENT and f.observation in ("nodule", "opacity", "mass", "lesion"):
            f = _replace_status(f, UNCERTAIN)
        out.append(f)
    return out


def _replace_status(f: Finding, status: str) -> Finding:
    return replace(f, status=status, harm=harm_of(f.observation, status))


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (observation, status, laterality, location) in a sentence; a generic
    "support device" (a tip, a catheter) beside a named device is that device."""
    seen = set()
    out = []
    named = {f.status for f in findings
             if CONCEPT_BY_NAME[f.observation].device and f.observation != "support device"}
    for f in findings:
        if f.observation == "support device" and f.status in named:
            continue
        key = (f.observation, f.status, f.laterality, f.location)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


@lru_cache(maxsize=8192)
def _cached(text: str) -> tuple[Finding, ...]:
    return tuple(_sentence_findings(as_parsed(text)))


def extract_findings(report: str | ParsedReport) -> list[Finding]:
    """Every finding of ``report`` in reading order (cached per report text)."""
    text = report.text if isinstance(report, ParsedReport) else report
    return list(_cached(text))


def findings_tuple(report: str | ParsedReport) -> tuple[Finding, ...]:
    """Like ``extract_findings`` but the cached tuple itself (no copy), for hot loops."""
    text = report.text if isinstance(report, ParsedReport) else report
    return _cached(text)


def findings_by_sentence(report: str | ParsedReport) -> dict[int, list[Finding]]:
    """The findings of ``report`` grouped by sentence index (every sentence has an entry)."""
    parsed = as_parsed(report)
    grouped: dict[int, list[Finding]] = {s.index: [] for s in parsed.sentences}
    for f in findings_tuple(parsed.text):
        grouped.setdefault(f.sentence_index, []).append(f)
    return grouped
