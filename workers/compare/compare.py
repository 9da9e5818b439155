"""Compare a candidate report with a reference: the candidate's errors, each explained.

``compare_reports(candidate, reference)`` reads both reports once each into statements
(workers/compare/statements.py: the language engine's findings) and answers a ``Comparison``:
a list of ``CandidateError`` in the six categories radiologists count
(workers/compare/categories.py) and a score. The rules follow RadFlag's entailment engine
(workers/nlp/entailment.py), applied both ways — the candidate's statements against the
reference (what it should not say) and the reference's against the candidate (what it should):

* a positive statement (present or possible) is supported by a positive statement of the same
  observation, a narrower or broader one, or a similar one (workers/nlp/vocabulary.py);
  supported, but on another side or in another place -> **location**; with another severity
  -> **severity**;
* a candidate positive with no support is a **false finding** — contradicted when the
  reference rules it out; a reference positive with no support is a **missing finding** —
  denied when the candidate rules it out;
* one finding written in place of another in the same sentence ("Borderline cardiomegaly."
  -> "Borderline aspergillosis.") is one false finding, not a false and a missing one;
* a reference denial ("no pneumothorax") that the candidate neither makes nor implies (a
  normal statement implies it: "lungs are clear") is a missing finding, never significant;
  a candidate denial the reference does not contradict is no error (rule 1 of the engine);
* a candidate comparison with a prior exam when the reference refers to none, or a change
  that contradicts the reference's ("new" where it says "unchanged") -> **false comparison**;
  a finding the candidate states without the change the reference describes ("increased",
  "new", "resolved", ...) -> **missing comparison**.

Statements of one kind that rest on the same pair of sentences are one error ("No
pneumothorax or effusion." -> "Pneumothorax or effusion." is one false finding naming both):
one wrong sentence is one error, however many findings it lists. An error is clinically
significant when the harm of the wrong statement (workers/nlp/harm.py) is at least
``SIGNIFICANT_HARM``; an omitted denial never is. The score weighs each significant error 1
and each other error ``INSIGNIFICANT_WEIGHT``: 0 is a candidate that says what the reference
says; higher is worse.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from workers.nlp.harm import harm_of
from workers.nlp.vocabulary import PARENTS, ancestors, similar
from workers.types import Harm

from . import categories as cat
from .align import align, replaced_words
from .statements import Reading, Statement, StatementReader, read_report

SIGNIFICANT_HARM = Harm.MEDIUM
INSIGNIFICANT_WEIGHT = 1.0

# Sizes and places the way the entailment engine groups them: "small" and "mild" are one
# size, "base" and "lower lobe" one place. The rank orders sizes from least to most.
_SEVERITY_RANK = {
    "trace": 0, "minimal": 0, "mild": 1, "small": 1, "borderline": 1, "mild to moderate": 2,
    "small to moderate": 2, "moderate": 2, "moderate to large": 3, "severe": 3, "large": 3,
}
_PLACE_GROUP = {
    "lower lobe": "lower", "base": "lower", "lower lung": "lower", "retrocardiac": "lower",
    "costophrenic angle": "lower", "upper lobe": "upper", "apex": "upper", "upper lung": "upper",
    "middle lobe": "middle", "lingula": "middle", "midlung": "middle", "perihilar": "central",
    "central": "central", "peripheral": "peripheral", "fissure": "fissure",
}
# Comparison cues by what they say happened (workers/nlp/vocabulary.py normalises them);
# "compared", "interval" and "changed" only say that there was a prior exam.
_DIRECTION = {
    "new": "worse", "worsened": "worse", "increased": "worse",
    "improved": "better", "decreased": "better", "resolved": "better",
    "unchanged": "same", "stable": "same", "again": "same", "persistent": "same",
}
_CHANGE_CUES = frozenset({"new", "worsened", "increased", "improved", "decreased", "resolved"})
_WORSE_CUES = frozenset({"new", "worsened", "increased"})
_DEVICE = "support device"


@dataclass(frozen=True)
class CandidateError:
    """One error of the candidate, in one category, resting on one sentence of each report
    (either may be None: a finding the reference never mentions has no reference sentence)."""

    category: str
    significant: bool
    candidate_sentence: str | None
    reference_sentence: str | None
    explanation: str
    observations: tuple[str, ...] = ()
    candidate_index: int | None = None
    reference_index: int | None = None

    def to_dict(self) -> dict:
        return {"category": self.category, "significant": self.significant,
                "candidate_sentence": self.candidate_sentence,
                "reference_sentence": self.reference_sentence,
                "explanation": self.explanation}


@dataclass(frozen=True)
class Comparison:
    errors: tuple[CandidateError, ...]
    score: float

    def counts(self, *, significant_only: bool = False) -> dict[str, int]:
        """Errors per category (every category present, zero included)."""
        out = dict.fromkeys(cat.KEYS, 0)
        for error in self.errors:
            if error.significant or not significant_only:
                out[error.category] += 1
        return out

    @property
    def significant(self) -> int:
        return sum(1 for e in self.errors if e.significant)

    def to_dict(self) -> dict:
        return {"score": self.score, "errors": [e.to_dict() for e in self.errors]}


def score_of(errors: Iterable[CandidateError]) -> float:
    return float(sum(1.0 if e.significant else INSIGNIFICANT_WEIGHT for e in errors))


# --- what two statements have in common ------------------------------------------------------


def _related(a: str, b: str) -> bool:
    """One supports the other: the same observation, a narrower or broader one, or a close
    one ("edema" and "vascular congestion") — but not another device ("chest tube" and
    "pacemaker" are both support devices, and one is not the other)."""
    if a == b or a in ancestors(b) or b in ancestors(a):
        return True
    return similar(a, b) and not (_DEVICE in PARENTS.get(a, ()) and _DEVICE in PARENTS.get(b, ()))


def _same_or_narrower(broad: str, narrow: str) -> bool:
    """``narrow`` is ``broad`` or implies it ("consolidation" implies "opacity")."""
    return broad == narrow or broad in ancestors(narrow)


def _sides_overlap(a: str | None, b: str | None) -> bool:
    return a is None or b is None or a == b or "bilateral" in (a, b)


def _said(s: Statement) -> str:
    """The words of a statement as they read inside a sentence ("Cardiomegaly" ->
    "cardiomegaly"; "ET tube" stays)."""
    text = " ".join(s.text.split())
    if text[:1].isupper() and not text[1:2].isupper():
        return text[0].lower() + text[1:]
    return text


def _place(s: Statement) -> str:
    return " ".join(p for p in (s.laterality, s.location) if p) or "unstated"


@dataclass
class _Sides:
    """The sides each report states an observation on, so that "bilateral effusions" agrees
    with "left effusion" and "right effusion" said apart."""

    by_observation: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, statements: Iterable[Statement]) -> _Sides:
        sides = cls()
        for s in statements:
            if s.laterality:
                sides.by_observation.setdefault(s.observation, set()).add(s.laterality)
        return sides

    def both(self, observation: str) -> bool:
        stated = self.by_observation.get(observation, set())
        return "bilateral" in stated or {"left", "right"} <= stated


def _differences(a: Statement, b: Statement, a_sides: _Sides, b_sides: _Sides) -> list[str]:
    """The categories in which two related positive statements disagree (none: they agree)."""
    out = []
    side_differs = bool(a.laterality and b.laterality and a.laterality != b.laterality)
    if side_differs and "bilateral" in (a.laterality, b.laterality):
        # bilateral against one side agrees when that report states the other side elsewhere
        one_sided, sides = (b, b_sides) if a.laterality == "bilateral" else (a, a_sides)
        side_differs = not sides.both(one_sided.observation)
    place_differs = bool(a.location and b.location and _PLACE_GROUP.get(a.location, a.location)
                         != _PLACE_GROUP.get(b.location, b.location))
    if side_differs or place_differs:
        out.append(cat.LOCATION)
    if a.severity and b.severity and _SEVERITY_RANK.get(a.severity, a.severity) != \
            _SEVERITY_RANK.get(b.severity, b.severity):
        out.append(cat.SEVERITY)
    return out


def _agrees_outright(s: Statement, o: Statement, conflict: Statement, s_sides: _Sides,
                     o_sides: _Sides) -> bool:
    """``o`` agrees with ``s`` and states, as ``s`` does, each attribute in which ``conflict``
    differs from ``s``."""
    if _differences(s, o, s_sides, o_sides):
        return False
    if s.laterality != conflict.laterality and o.laterality != s.laterality:
        return False
    if s.location != conflict.location and o.location is None:
        return False
    return not (s.severity != conflict.severity and o.severity is None)


def _significant(harm: Harm) -> bool:
    return harm.rank >= SIGNIFICANT_HARM.rank


# --- collecting errors -----------------------------------------------------------------------


@dataclass
class _Item:
    category: str
    kind: str
    candidate_index: int | None
    reference_index: int | None
    phrase: str
    significant: bool
    observation: str
    replacement: str = ""


def _words(phrases: list[str]) -> str:
    phrases = list(dict.fromkeys(phrases))
    if len(phrases) == 1:
        return phrases[0]
    return ", ".join(phrases[:-1]) + " and " + phrases[-1]


_TEMPLATES = {
    "unsupported": "States {what}, which the reference does not.",
    "contradicted": "States {what}; the reference rules {it} out.",
    "in_place": "States “{replacement}” where the reference states {what}.",
    "omitted": "Omits {what}, which the reference states.",
    "denied": "Rules out {what}, which the reference states.",
    "omitted_negative": "Does not rule out {what}, as the reference does.",
    "location": "Wrong place: {what}.",
    "severity": "Wrong severity: {what}.",
    "no_prior": "Compares with a prior exam (“{what}”); the reference refers to none.",
    "conflict": "Wrong change from the prior exam: {what}.",
    "no_change": "Does not say that {what}, as the reference does.",
}


def _explain(kind: str, items: list[_Item]) -> str:
    phrases = [i.phrase for i in items]
    return _TEMPLATES[kind].format(
        what=_words(phrases), it="it" if len(set(phrases)) == 1 else "them",
        replacement=items[0].replacement)


def _collect(items: list[_Item], candidate: Reading, reference: Reading
             ) -> tuple[CandidateError, ...]:
    groups: dict[tuple, list[_Item]] = {}
    for item in items:
        key = (item.category, item.kind, item.candidate_index, item.reference_index,
               item.replacement)
        groups.setdefault(key, []).append(item)
    order = {key: n for n, key in enumerate(cat.KEYS)}
    errors = []
    for (category, kind, c_index, r_index, _), group in groups.items():
        errors.append(CandidateError(
            category=category, significant=any(i.significant for i in group),
            candidate_sentence=None if c_index is None else candidate.sentences[c_index],
            reference_sentence=None if r_index is None else reference.sentences[r_index],
            explanation=_explain(kind, group),
            observations=tuple(dict.fromkeys(i.observation for i in group)),
            candidate_index=c_index, reference_index=r_index))
    errors.sort(key=lambda e: (
        e.candidate_index if e.candidate_index is not None else 10**6,
        e.reference_index if e.reference_index is not None else 10**6,
        order[e.category]))
    return tuple(errors)


# --- the comparison --------------------------------------------------------------------------


@dataclass
class _Side:
    """One report's statements and what the comparison has settled about them."""

    reading: Reading
    positives: list[Statement]
    negatives: list[Statement]
    sides: _Sides
    exact: set[int] = field(default_factory=set)  # ids of positives supported as they are
    # id of a positive -> the other report's denial of it in the aligned sentence
    denied_in_place: dict[int, Statement] = field(default_factory=dict)

    @classmethod
    def of(cls, reading: Reading) -> _Side:
        positives = [s for s in reading.statements if s.positive]
        negatives = [s for s in reading.statements if s.absent]
        return cls(reading, positives, negatives, _Sides.of(positives))


def _relative(reading: Reading, s: Statement) -> tuple[int, int]:
    start = reading.starts[s.sentence]
    return s.start - start, s.end - start


class _Comparer:
    def __init__(self, candidate: Reading, reference: Reading) -> None:
        self.c = _Side.of(candidate)
        self.r = _Side.of(reference)
        self.pairs = align({i: candidate.sentences[i] for i in candidate.image_sentences},
                           {i: reference.sentences[i] for i in reference.image_sentences})
        self.back = {r: c for c, r in self.pairs.items()}
        self.items: list[_Item] = []
        self.settled_c: set[int] = set()  # candidate positives already in an error
        self.settled_r: set[int] = set()  # reference statements already in an error

    # the sentence of the other report an error names when nothing else ties them
    def aligned_r(self, s: Statement) -> int | None:
        return self.pairs.get(s.sentence)

    def aligned_c(self, s: Statement) -> int | None:
        return self.back.get(s.sentence)

    def add(self, category, kind, c_index, r_index, phrase, significant, observation,
            replacement=""):
        self.items.append(_Item(category, kind, c_index, r_index, phrase, significant,
                                observation, replacement))

    def run(self) -> tuple[CandidateError, ...]:
        self.mark_exact()
        self.substitutions()
        self.denials_in_place()
        self.attribute_errors()
        self.false_findings()
        self.missing_findings()
        self.missing_denials()
        self.comparisons()
        return _collect(self.items, self.c.reading, self.r.reading)

    # -- positives --------------------------------------------------------------------------

    def _aligned(self, side: _Side, s: Statement) -> int | None:
        return self.aligned_r(s) if side is self.c else self.aligned_c(s)

    def mark_exact(self) -> None:
        """The positives the other report states as they are. The sentence a statement was
        aligned with speaks first: when it states the same observation denied, or on another
        side, in another place or with another size, a mention elsewhere that leaves the side
        (place, size) unstated does not make up for it ("Left IJ catheter" rewritten "Right
        IJ catheter" is not excused by "the catheter" in another sentence)."""
        for a, b in ((self.c, self.r), (self.r, self.c)):
            for s in a.positives:
                aligned = self._aligned(a, s)
                there = [o for o in b.reading.statements
                         if o.sentence == aligned and o.observation == s.observation]
                denial = next((o for o in there if o.absent and not o.implied
                               and _sides_overlap(s.laterality, o.laterality)), None)
                if denial is not None and not any(o.positive for o in there):
                    a.denied_in_place[id(s)] = denial
                    continue
                conflicts = [o for o in there if o.positive
                             and _differences(s, o, a.sides, b.sides)]
                if conflicts and not any(o.positive and not _differences(s, o, a.sides, b.sides)
                                         for o in there):
                    if any(o.observation == s.observation
                           and _agrees_outright(s, o, conflicts[0], a.sides, b.sides)
                           for o in b.positives):
                        a.exact.add(id(s))
                    continue
                if any(_related(s.observation, o.observation)
                       and not _differences(s, o, a.sides, b.sides) for o in b.positives):
                    a.exact.add(id(s))

    def denials_in_place(self) -> None:
        """A positive whose aligned sentence states it denied: a false finding (candidate
        positive) or a missing one (reference positive), whatever else either report says."""
        for s in self.c.positives:
            denial = self.c.denied_in_place.get(id(s))
            if denial is not None and id(denial) not in self.settled_r:
                self.settled_c.add(id(s))
                self.settled_r.add(id(denial))
                self.add(cat.FALSE_FINDING, "contradicted", s.sentence, denial.sentence, _said(s),
                         _significant(s.harm), s.observation)
        for o in self.r.positives:
            denial = self.r.denied_in_place.get(id(o))
            if denial is not None and id(o) not in self.settled_r:
                self.settled_r.add(id(o))
                self.settled_c.add(id(denial))
                self.add(cat.MISSING_FINDING, "denied", denial.sentence, o.sentence, _said(o),
                         _significant(harm_of(o.observation, "absent")), o.observation)

    def _closest(self, s: Statement, own: _Side, other: _Side, aligned: int | None
                 ) -> tuple[Statement, list[str]] | None:
        """The other report's related positive that differs least from ``s``: the same
        observation in the aligned sentence first (the sentence rewritten), else the one
        with the fewest differences; None when there is none, or when the one found
        elsewhere is already matched as it is by another statement (then ``s`` is an extra,
        or an omission, not a variant)."""
        best = None
        for o in other.positives:
            if not _related(s.observation, o.observation):
                continue
            diffs = _differences(s, o, own.sides, other.sides)
            in_place = o.sentence == aligned and o.observation == s.observation
            key = (not in_place, len(diffs), o.sentence != aligned,
                   o.observation != s.observation)
            if best is None or key < best[0]:
                best = (key, o, diffs)
        if best is None or (best[0][0] and id(best[1]) in other.exact):
            return None
        return best[1], best[2]

    def attribute_errors(self) -> None:
        for s in self.c.positives:
            if id(s) in self.c.exact:
                continue
            closest = self._closest(s, self.c, self.r, self.aligned_r(s))
            if closest is None:
                continue
            o, diffs = closest
            self.settled_c.add(id(s))
            self.settled_r.add(id(o))
            self._attribute_items(s, o, diffs)
        for o in self.r.positives:
            if id(o) in self.r.exact or id(o) in self.settled_r:
                continue
            closest = self._closest(o, self.r, self.c, self.aligned_c(o))
            if closest is None:
                continue
            s, diffs = closest
            self.settled_r.add(id(o))
            if id(s) in self.settled_c:
                continue  # the same wrong statement, already one error
            self.settled_c.add(id(s))
            self._attribute_items(s, o, diffs)

    def _attribute_items(self, s: Statement, o: Statement, diffs: list[str]) -> None:
        significant = _significant(harm_of(o.observation, "present"))
        for category in diffs:
            if category == cat.LOCATION:
                phrase = f"{s.observation} {_place(s)}, the reference {_place(o)}"
            else:
                phrase = f"{s.observation} {s.severity}, the reference {o.severity}"
            self.add(category, category, s.sentence, o.sentence, phrase, significant,
                     s.observation)

    def _denial(self, s: Statement, other: _Side, aligned: int | None) -> Statement | None:
        """The other report's statement that rules ``s`` out: the same observation absent on
        an overlapping side, in the aligned sentence first, said outright before implied."""
        found = [o for o in other.negatives
                 if o.observation == s.observation and _sides_overlap(s.laterality, o.laterality)]
        if not found:
            return None
        return min(found, key=lambda o: (o.sentence != aligned, o.implied, o.sentence))

    def false_findings(self) -> None:
        self.pending_c: list[Statement] = []
        for s in self.c.positives:
            if id(s) in self.c.exact or id(s) in self.settled_c:
                continue
            denial = self._denial(s, self.r, self.aligned_r(s))
            if denial is not None:
                self.settled_c.add(id(s))
                self.settled_r.add(id(denial))
                self.add(cat.FALSE_FINDING, "contradicted", s.sentence, denial.sentence, _said(s),
                         _significant(s.harm), s.observation)
            else:
                self.pending_c.append(s)

    def missing_findings(self) -> None:
        for o in self.r.positives:
            if id(o) in self.r.exact or id(o) in self.settled_r:
                continue
            aligned = self.aligned_c(o)
            denial = self._denial(o, self.c, aligned)
            self.settled_r.add(id(o))
            if denial is not None:
                self.add(cat.MISSING_FINDING, "denied", denial.sentence, o.sentence, _said(o),
                         _significant(harm_of(o.observation, "absent")), o.observation)
            else:
                self.add(cat.MISSING_FINDING, "omitted", aligned, o.sentence, _said(o),
                         _significant(harm_of(o.observation, "absent")), o.observation)
        for s in self.pending_c:
            if id(s) not in self.settled_c:
                self.settled_c.add(id(s))
                self.add(cat.FALSE_FINDING, "unsupported", s.sentence, self.aligned_r(s), _said(s),
                         _significant(s.harm), s.observation)

    def substitutions(self) -> None:
        """A finding written in place of one of the reference's, in the aligned sentence: one
        false finding, whether or not the reference's finding is stated elsewhere too."""
        for c_index, r_index in self.pairs.items():
            reference_text = self.r.reading.sentences[r_index]
            candidate_text = self.c.reading.sentences[c_index]
            if reference_text == candidate_text:
                continue
            c_start = self.c.reading.starts[c_index]
            for o in self.r.positives:
                if o.sentence != r_index or id(o) in self.settled_r:
                    continue
                span = replaced_words(reference_text, candidate_text,
                                      *_relative(self.r.reading, o))
                if span is None:
                    continue
                there = [s for s in self.c.reading.statements if s.sentence == c_index
                         and s.start - c_start < span[1] and span[0] < s.end - c_start]
                stated = [s for s in there if s.positive]
                if not stated or any(_related(s.observation, o.observation) for s in there) \
                        or all(id(s) in self.c.exact for s in stated):
                    continue  # nothing stated in its place, the same finding reworded, or
                    # a finding the reference states too (then this one is only omitted)
                for s in there:
                    self.settled_c.add(id(s))
                self.settled_r.add(id(o))
                harm = max([o.harm, *(s.harm for s in there if s.positive)],
                           key=lambda h: h.rank)
                self.add(cat.FALSE_FINDING, "in_place", c_index, r_index, _said(o),
                         _significant(harm), o.observation,
                         replacement=candidate_text[span[0]:span[1]])

    # -- denials ----------------------------------------------------------------------------

    def missing_denials(self) -> None:
        """Reference denials the candidate neither makes nor implies."""
        for o in self.r.negatives:
            if id(o) in self.settled_r:
                continue
            if any(_same_or_narrower(o.observation, s.observation)
                   and _sides_overlap(s.laterality, o.laterality) for s in self.c.positives):
                continue  # the candidate affirms it: a false finding on its side
            # A denial said outright ("no pneumothorax") is kept only by one said outright
            # (or a broader one: "no airspace disease" keeps "no consolidation"); a normal
            # statement ("no acute cardiopulmonary abnormality") keeps what a normal
            # statement of the reference implies, not the reference's own pertinent negative.
            covering = [s for s in self.c.negatives
                        if _same_or_narrower(s.observation, o.observation)
                        and (o.implied or not s.implied)]
            if any(_sides_overlap(s.laterality, o.laterality) for s in covering):
                continue
            aligned = self.aligned_c(o)
            if covering:
                s = min(covering, key=lambda s: s.sentence != aligned)
                self.add(cat.LOCATION, "location", s.sentence, o.sentence,
                         f"no {o.observation} {_place(s)}, the reference {_place(o)}", False,
                         o.observation)
            else:
                self.add(cat.MISSING_FINDING, "omitted_negative", aligned, o.sentence,
                         o.observation, False, o.observation)

    # -- comparisons ------------------------------------------------------------------------

    def _conflicting_change(self, s: Statement) -> None:
        """A false comparison when every reference statement of the same finding (same
        observation, polarity and side) that states a change states another one."""
        same = [o for o in self.r.reading.statements
                if o.observation == s.observation and o.positive == s.positive
                and _sides_overlap(s.laterality, o.laterality)]
        if not same or any(_compatible(s.comparison, o.comparison) for o in same):
            return
        aligned = self.aligned_r(s)
        o = min(same, key=lambda o: o.sentence != aligned)
        significant = (_significant(harm_of(s.observation, "present"))
                       and "same" not in (_DIRECTION[o.comparison], _DIRECTION[s.comparison]))
        self.add(cat.FALSE_COMPARISON, "conflict", s.sentence, o.sentence,
                 f"{s.observation} {s.comparison}, the reference {o.comparison}", significant,
                 s.observation)

    def comparisons(self) -> None:
        c, r = self.c.reading, self.r.reading
        for index, cue in c.cues.items():
            if not r.prior:
                self.add(cat.FALSE_COMPARISON, "no_prior", index, self.pairs.get(index), cue,
                         False, "")
        if r.prior:
            for s in c.statements:
                if s.comparison in _DIRECTION:
                    self._conflicting_change(s)
        for o in r.statements:
            if o.comparison not in _CHANGE_CUES or id(o) in self.settled_r:
                continue  # not a change, or the finding itself is already an error
            same = [s for s in c.statements if s.positive == o.positive
                    and _related(s.observation, o.observation)]
            if same and not any(s.comparison for s in same):
                significant = (o.comparison in _WORSE_CUES
                               and _significant(harm_of(o.observation, "present")))
                self.add(cat.MISSING_COMPARISON, "no_change", same[0].sentence, o.sentence,
                         f"{o.observation} {o.comparison}", significant, o.observation)


def _compatible(a: str | None, b: str | None) -> bool:
    return a not in _DIRECTION or b not in _DIRECTION or _DIRECTION[a] == _DIRECTION[b]


def compare_readings(candidate: Reading, reference: Reading) -> Comparison:
    errors = _Comparer(candidate, reference).run()
    return Comparison(errors=errors, score=score_of(errors))


def compare_reports(candidate: str, reference: str, *,
                    reader: StatementReader = read_report) -> Comparison:
    """The candidate's errors against the reference, each explained, and their score."""
    return compare_readings(reader(candidate), reader(reference))
