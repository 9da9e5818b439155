"""What a report states, as the comparison reads it: the one interface to the language engine.

``read_report(text)`` returns a ``Reading``: the report's sentences and one ``Statement`` per
thing an image sentence says about one observation. Today it is built from the engine's own
reading (workers/nlp: ``parse_report`` and ``findings_tuple``, both cached per text, so a
report RadFlag, the audit or the labeler already read is not read again); the comparison
(workers/compare/compare.py) sees nothing else, so a later model of what a report states can
serve it by providing the same two dataclasses (``compare_reports(..., reader=...)``).

Beyond the engine's findings, a disease-like term outside the vocabulary ("cirrhosis") that a
sentence affirms is a statement of its own, as the entailment engine treats it
(workers/nlp/entailment.py, rule 7); a negated one states nothing we compare.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from workers.nlp.findings import ABSENT, IMAGE_SECTIONS, PRESENT, findings_tuple
from workers.nlp.harm import UNKNOWN_HARM
from workers.nlp.polarity import is_negated
from workers.nlp.radiographic import out_of_domain_terms
from workers.nlp.sections import parse_report
from workers.nlp.vocabulary import comparison_cue
from workers.types import Harm

POSITIVE_STATUSES = frozenset({PRESENT, "uncertain"})


@dataclass(frozen=True)
class Statement:
    """One thing one sentence says about one observation.

    ``status``: present, absent or uncertain. ``start``/``end``: the words that say it, as
    offsets in the report text. ``implied``: an absence read from a normal statement ("lungs
    are clear" states no consolidation). ``known``: the observation is in the engine's
    vocabulary (False for an affirmed out-of-vocabulary term, whose ``observation`` is the
    term itself). ``harm``: how much this statement being wrong could hurt
    (workers/nlp/harm.py).
    """

    sentence: int
    observation: str
    status: str
    laterality: str | None
    severity: str | None
    location: str | None
    comparison: str | None
    start: int
    end: int
    text: str
    harm: Harm
    implied: bool = False
    known: bool = True

    @property
    def positive(self) -> bool:
        return self.status in POSITIVE_STATUSES

    @property
    def absent(self) -> bool:
        return self.status == ABSENT


@dataclass(frozen=True)
class Reading:
    """A report as the comparison sees it.

    ``sentences``: every sentence's text, by the index statements use. ``image_sentences``:
    the indices of the sentences that describe the images (FINDINGS, IMPRESSION, ...), the
    only ones compared. ``spans``: each sentence's start offset in the report, so a statement's
    words can be found in its sentence. ``cues``: the comparison cue of each image sentence
    that has one ("unchanged", "new", "compared", ...). ``prior``: whether the report refers
    to a prior exam at all (a cue in an image sentence, or a COMPARISON section naming one).
    """

    text: str
    sentences: tuple[str, ...]
    starts: tuple[int, ...]
    image_sentences: tuple[int, ...]
    statements: tuple[Statement, ...]
    cues: dict[int, str]
    prior: bool


class StatementReader(Protocol):
    def __call__(self, text: str) -> Reading: ...


def _statement_from_finding(f) -> Statement:
    return Statement(
        sentence=f.sentence_index, observation=f.observation, status=f.status,
        laterality=f.laterality, severity=f.severity, location=f.location,
        comparison=f.comparison, start=f.start, end=f.end, text=f.text or f.observation,
        harm=f.harm, implied=f.implied)


def _unknown_terms(sentence, cue: str | None) -> list[Statement]:
    """The affirmed out-of-vocabulary terms of one sentence, as statements (rule 7 of the
    entailment engine: a negated one is a negative finding, entailed like any other)."""
    out = []
    lower = sentence.text.lower()
    for term in out_of_domain_terms(sentence.text, strict=True):
        at = lower.find(term.lower())
        if at < 0 or is_negated(sentence.text, at, at + len(term)):
            continue
        out.append(Statement(
            sentence=sentence.index, observation=term.lower(), status=PRESENT, laterality=None,
            severity=None, location=None, comparison=cue, start=sentence.start + at,
            end=sentence.start + at + len(term), text=sentence.text[at:at + len(term)],
            harm=UNKNOWN_HARM, known=False))
    return out


# Words by which a COMPARISON section names an earlier exam ("Chest radiograph ___", "CT
# 3/4/2020"); "None." names none, and "No prior studies" denies one (the one negation reads it).
_PRIOR_EXAM_RE = re.compile(r"\b(?:radiographs?|films?|stud(?:y|ies)|exams?|examinations?|ct|"
                            r"x-?rays?|cxrs?|views?|\d{1,2}/\d{1,2}(?:/\d{2,4})?)\b|_{3,}")


def _names_a_prior(section: str) -> bool:
    lower = section.lower()
    return any(not is_negated(lower, m.start(), m.end()) for m in _PRIOR_EXAM_RE.finditer(lower))


@lru_cache(maxsize=8192)
def read_report(text: str) -> Reading:
    """The engine's reading of ``text`` as statements (cached per text)."""
    parsed = parse_report(text)
    image = tuple(s.index for s in parsed.image_sentences)
    image_set = frozenset(image)
    cues = {}
    for s in parsed.image_sentences:
        cue = comparison_cue(s.text.lower())
        if cue:
            cues[s.index] = cue
    statements = [_statement_from_finding(f) for f in findings_tuple(text)
                  if f.section in IMAGE_SECTIONS and f.sentence_index in image_set]
    for s in parsed.image_sentences:
        statements.extend(_unknown_terms(s, cues.get(s.index)))
    statements.sort(key=lambda st: (st.sentence, st.start))
    prior = bool(cues) or _names_a_prior(parsed.section_text("comparison"))
    return Reading(
        text=text, sentences=tuple(s.text for s in parsed.sentences),
        starts=tuple(s.start for s in parsed.sentences), image_sentences=image,
        statements=tuple(statements), cues=cues, prior=prior)
