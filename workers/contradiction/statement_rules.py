"""Contradictions read off the statement model (workers/nlp/statements.py, issue 31).

Every pair of committed statements of two sentences about overlapping findings (the same node
of the hierarchy, one narrower than the other, or close; workers/nlp/hierarchy.py) is compared
on what the model gives each statement:

* ``presence``: a denial or a normal statement that the hierarchy says a stated finding
  contradicts ("No focal lung lesion." / "3.2 cm spiculated mass": a mass is a focal lung
  lesion; "Lungs are clear." / "diffuse bilateral airspace opacities");
* ``side``: the same finding on different sides in FINDINGS and IMPRESSION, one side against
  both ("small bilateral pleural effusions" / "Small left pleural effusion."), and one lesion
  or one opacity at one place read on two sides;
* ``severity``: two grades two steps apart ("complete collapse of the left lower lobe" /
  "Mild left basilar atelectasis."), or two measured sizes of one lesion ("1.0 cm nodule" /
  "3.0 cm ... mass");
* ``count``: one against several ("two nodules" / "Solitary ... nodule");
* ``temporal``: changes that exclude each other ("new" / "unchanged", "resolved" / still
  there, "improved" / "worse");
* ``device``: a tube or line in standard position in one sentence and out of place in
  another, or its tip at two places that do not touch.

The rules of ``rules.py`` (heart size, global normal, presence of one observation, side,
severity) stand as they were; a pair found by both is kept once (``find.py``).
"""
from __future__ import annotations

import re
from dataclasses import replace

from workers.nlp.findings import ABSENT, PRESENT
from workers.nlp.harm import harm_of
from workers.nlp.hierarchy import contradicts, is_a, loose, overlapping, places_agree
from workers.nlp.statements import (
    BETTER,
    GONE,
    MANY,
    NEW,
    OLD,
    PERSISTS,
    UNCHANGED,
    WORSE,
    Statement,
    nothing_changed_said,
    places_overlap,
    plural,
    same_finding,
    sides_overlap,
)
from workers.nlp.vocabulary import CONCEPT_BY_NAME, NON_LUNG_SITES
from workers.study.context import StudyContext

from . import guards
from .pairs import (
    COUNT,
    DEVICE,
    GLOBAL_NORMAL,
    PRESENCE,
    SEVERITY,
    SIDE,
    TEMPORAL,
    Claim,
    Contradiction,
    pair,
)

CONFIDENCE = {PRESENCE: 0.75, GLOBAL_NORMAL: 0.7, SIDE: 0.7, SEVERITY: 0.7, COUNT: 0.7,
              TEMPORAL: 0.7, DEVICE: 0.7}

# Findings of which a report names several (one per side, one per place): two sides are two
# of them unless the report says there is one.
_MANY = frozenset({"nodule", "granuloma", "calcification", "calcified lymph node", "scarring",
                   "surgical clips", "opacity", "atelectasis", "interstitial markings",
                   "degenerative change", "lesion", "mass", "airspace opacity"})
# What grades of one finding are compared: not a finding of which there are several.
_NOT_GRADED = _MANY - {"atelectasis", "opacity", "airspace opacity"}
# changes that exclude each other, either way round
_EXCLUDING = {frozenset((NEW, UNCHANGED)), frozenset((NEW, PERSISTS)), frozenset((NEW, OLD)),
              frozenset((BETTER, WORSE)), frozenset((UNCHANGED, BETTER)),
              frozenset((UNCHANGED, WORSE))}
_CHANGE_WORDS = {NEW: "new", UNCHANGED: "unchanged", PERSISTS: "still there", BETTER: "better",
                 WORSE: "worse", GONE: "gone", OLD: "old"}


def _image(ctx: StudyContext) -> list[Statement]:
    image = set(ctx.image_sentences)
    return [s for s in ctx.statements if s.sentence in image]


def _sections(ctx: StudyContext) -> dict[int, str]:
    return {s.index: s.section for s in ctx.parsed.sentences}


def _claim(ctx: StudyContext, s: Statement) -> Claim:
    """The statement's claim: the finding's words, or, where the pair is about an attribute
    the words around it give (a size, a count, a change, a tip's place), those words."""
    return Claim(s.sentence, s.finding, s.words)


def _phrased(s: Statement) -> Claim:
    return Claim(s.sentence, s.finding, s.phrase or s.words)


def _text(ctx: StudyContext, s: Statement) -> str:
    return ctx.sentence(s.sentence).text


def _stated(ctx: StudyContext) -> list[Statement]:
    """Committed statements of a finding there now (present), not old or lasting."""
    return [s for s in _image(ctx) if not s.summary and s.committed and s.now == PRESENT]


# ---- presence through the hierarchy --------------------------------------------------------------

def hierarchy_presence(ctx: StudyContext) -> list[Contradiction]:
    """A denial of a broader finding against a narrower one stated ("No focal lung lesion." /
    "spiculated mass"), and a normal statement against what the hierarchy says contradicts it
    ("The lungs are clear." / "diffuse airspace opacities", "a mass"). Guards as the presence
    rule's: a denial narrowed by its own words, another side, size or place; a summary that
    leaves room; an old, lasting or trace finding."""
    sections = _sections(ctx)
    stated = _stated(ctx)
    out = []
    for d in _image(ctx):
        if d.status != ABSENT or not d.committed or d.temporal in (NEW, WORSE, BETTER, GONE):
            continue  # "no new consolidation" denies a change, not the finding
        text_d = _text(ctx, d)
        named = guards.named_beside(ctx.findings.get(d.sentence, []))
        for p in stated:
            if p.sentence == d.sentence:
                continue
            if d.summary:
                if d.concept in _OWN_RULE or not contradicts(d.concept, p.concept):
                    continue
                if not _sided_like(ctx, d, p) or _outside_lungs(p) or not places_overlap(d, p):
                    continue
                if "acute" in d.concept and p.location in _PARTLY_SHOWN:
                    continue  # a shoulder or the abdomen at the film's edge
                if guards.exception_leaves_room(text_d, named, p.finding.observation,
                                                overlapping):
                    continue
                # "no acute process" leaves room for a known or unchanged finding; "the lungs
                # are clear" does not for one again seen, only for an old one (a scar)
                lasting = guards.chronic if "acute" in d.concept else guards.lasting
                if (lasting(_text(ctx, p)) and not _called_acute(ctx, p)) \
                        or (p.grade is not None and p.grade[1] == 0):
                    continue
                kind = GLOBAL_NORMAL if "acute" in d.concept else PRESENCE
                denial = replace(d.finding, observation=p.finding.observation,
                                 harm=harm_of(p.finding.observation, ABSENT),
                                 category=p.finding.category)
                claim = Claim(d.sentence, denial, d.words)
            else:
                if not is_a(p.concept, d.concept) or loose(d.concept):
                    continue
                if p.concept == d.concept and not _airspaces_named(d, p):
                    continue  # one observation is the presence rule's
                if not (sides_overlap(d, p) and places_overlap(d, p)):
                    continue
                if d.grade is not None and d.grade != p.grade:
                    continue
                if _narrowed(ctx, d, p):
                    continue
                if guards.threshold_leaves_room(text_d, p.finding):
                    continue
                kind = PRESENCE
                claim = _claim(ctx, d)
            if guards.lasting(_text(ctx, p)):
                continue
            out.append(pair(kind, claim, _claim(ctx, p), CONFIDENCE[kind], sections))
    return out


# The presence rule leaves every stated opacity out: a plain one ("the opacity at the left base")
# may be the scar or atelectasis that "no airspace disease" leaves room for. One that its own
# words put in the airspaces ("right lower lobe airspace disease") is what that denial denies.
_AIRSPACES_RE = re.compile(r"\b(?:air[- ]?spaces?|alveolar)\b", re.IGNORECASE)


def _airspaces_named(d: Statement, p: Statement) -> bool:
    return p.finding.observation == "opacity" and all(
        _AIRSPACES_RE.search(s.phrase or s.words) for s in (d, p))


# regions a chest film shows only in part: "no acute abnormality of the chest" is not about them
_PARTLY_SHOWN = frozenset({"shoulder", "neck", "abdomen", "breast", "axilla"})
# summaries another rule compares (heart_size: its own guards for a heart at the upper limit)
_OWN_RULE = frozenset({"normal heart size"})


# "acute" just before the name of a finding stated present ("acute compression fracture"): not an
# old one
_ACUTE_BEFORE_RE = re.compile(r"\bacute\s+(?:[\w-]+\s+){0,2}$", re.IGNORECASE)


def _called_acute(ctx: StudyContext, p: Statement) -> bool:
    sentence = ctx.sentence(p.sentence)
    return bool(_ACUTE_BEFORE_RE.search(sentence.text[:p.finding.start - sentence.start]))


def _sided_like(ctx: StudyContext, d: Statement, p: Statement) -> bool:
    """A normal statement of one side ("The right lung is clear.") speaks only of a finding
    the report puts on that side (its own words, else the one side its sentence names)."""
    if d.laterality not in ("left", "right"):
        return True
    side = p.laterality
    if side is None:
        sides = {s.laterality for s in ctx.statements
                 if s.sentence == p.sentence and s.laterality}
        side = sides.pop() if len(sides) == 1 else None
    return side in (d.laterality, "bilateral")


def _outside_lungs(p: Statement) -> bool:
    """A lung observation placed outside the lungs ("chest wall mass")."""
    return CONCEPT_BY_NAME[p.finding.observation].lung and p.location in NON_LUNG_SITES


def _narrowed(ctx: StudyContext, d: Statement, p: Statement) -> bool:
    sentence = ctx.sentence(d.sentence)
    words = guards.denial_qualifiers(d.finding, sentence.text, sentence.start)
    # "no focal airspace disease", "no discrete lung lesion" name their node
    words -= {"focal", "lung", "pulmonary", "discrete"}
    stated = _text(ctx, p).lower()
    words -= guards.own_nature(p.finding, stated)
    return any(not re.search(rf"\b{re.escape(w)}\b", stated) for w in words)


# ---- side ------------------------------------------------------------------------------------

_BOTH_RE = re.compile(r"\b(?:bilateral(?:ly)?|both|bi(?:basilar|basal|apical|hilar)|"
                      r"(?:right|left) and (?:right|left))\b", re.IGNORECASE)


def _one_thing(a: Statement, b: Statement) -> bool:
    """Two statements of a finding a report may name several of speak of one: neither counts
    or names more than one, and their measured sizes (when both give one) agree."""
    if (a.count or 1) != 1 or (b.count or 1) != 1:
        return False
    if plural(a.finding.text) or plural(b.finding.text):
        return False
    if a.size_mm is not None and b.size_mm is not None:
        return max(a.size_mm, b.size_mm) <= 1.2 * min(a.size_mm, b.size_mm)
    return a.location is not None and b.location is not None


def statement_sides(ctx: StudyContext) -> list[Contradiction]:
    """The IMPRESSION puts a finding on a side the FINDINGS do not: left against right (one
    lesion or one opacity at one place included: "9 mm right upper lobe nodule" / "A 9 mm
    nodule projects over the left upper lobe"; "Retrocardiac opacity in the left lower lobe"
    / "Right lower lobe pneumonia"), or one side against both sides ("small bilateral pleural
    effusions" / "Small left pleural effusion.")."""
    sections = _sections(ctx)
    found = [s for s in _image(ctx) if not s.summary and not s.device and s.positive
             and not guards.revision(_text(ctx, s))
             and not guards.stated_as_prior(_text(ctx, s),
                                            s.start - ctx.sentence(s.sentence).start)]
    findings = [s for s in found if sections[s.sentence] == "findings"]
    impression = [s for s in found if sections[s.sentence] == "impression"]
    out = []
    for i in impression:
        if i.laterality is None:
            continue
        same = [f for f in findings if same_finding(i, f) and places_overlap(i, f)]
        if not same:
            continue
        sides = {f.laterality for f in same}
        if i.laterality in sides or None in sides:
            continue
        if i.laterality == "bilateral":
            if i.concept in _MANY or "bilateral" in sides or len(sides) != 1 \
                    or not _BOTH_RE.search(_text(ctx, i)):
                continue
            f = same[0]
        elif "bilateral" in sides:
            # one side against both: the impression says nothing of the other side
            if i.concept in _MANY or not i.committed or any(
                    o.laterality not in (None, i.laterality) for o in impression
                    if same_finding(i, o)):
                continue
            f = next(f for f in same if f.laterality == "bilateral")
            if not _BOTH_RE.search(_text(ctx, f)):
                continue  # "right pneumothorax seen on the left decubitus view" names a view
        else:
            f = same[0]
            if (i.concept in _MANY or f.concept in _MANY) and not _one_thing(i, f):
                continue
        out.append(pair(SIDE, _claim(ctx, f), _claim(ctx, i), CONFIDENCE[SIDE], sections))
    return out


def device_sides(ctx: StudyContext) -> list[Contradiction]:
    """The IMPRESSION puts a tube or line on one side and the FINDINGS put the same device
    (same kind) only on the other ("The left chest tube remains in place." / "Right chest tube
    in place."): a report that names no such device on the impression's side anywhere else."""
    sections = _sections(ctx)
    there = [s for s in _image(ctx) if s.device and s.committed and s.now == PRESENT]
    out = []
    for i in there:
        if sections[i.sentence] != "impression" or i.laterality not in ("left", "right"):
            continue
        same = [o for o in there if o is not i and o.concept == i.concept
                and not (o.kinds and i.kinds and not o.kinds & i.kinds)]
        if any(o.laterality in (None, i.laterality, "bilateral") for o in same):
            continue
        other = [o for o in same if sections[o.sentence] == "findings"]
        if other:
            out.append(pair(SIDE, _claim(ctx, other[0]), _claim(ctx, i), CONFIDENCE[SIDE],
                            sections))
    return out


# ---- severity and size -------------------------------------------------------------------------

def _apart(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return b[0] - a[1] >= 2 or a[0] - b[1] >= 2


def _sizes_apart(a: float, b: float) -> bool:
    """Two measured sizes of one thing that no rounding explains: half as large again and at
    least 3 mm apart."""
    small, large = min(a, b), max(a, b)
    return large >= 1.5 * small and large - small >= 3


def grades(ctx: StudyContext) -> list[Contradiction]:
    """One finding (same side, same region) graded two steps apart in two sentences, or one
    lesion measured at two sizes, neither sentence speaking of a change."""
    sections = _sections(ctx)
    # a sentence of a change may give the grade before it ("decreased from moderate to small")
    stated = [s for s in _stated(ctx) if s.temporal not in (BETTER, WORSE)]
    out = []
    for n, a in enumerate(stated):
        for b in stated[n + 1:]:
            if a.sentence == b.sentence or not same_finding(a, b):
                continue
            if a.laterality != b.laterality and None not in (a.laterality, b.laterality):
                continue
            if not places_overlap(a, b):
                continue
            sized = a.size_mm is not None and b.size_mm is not None \
                and is_a(a.concept, "lesion") and is_a(b.concept, "lesion") \
                and _sizes_apart(a.size_mm, b.size_mm) and _the_one_lesion(ctx, a, b)
            graded = a.grade is not None and b.grade is not None \
                and a.concept not in _NOT_GRADED and b.concept not in _NOT_GRADED \
                and _apart(a.grade, b.grade)
            if sized or graded:
                out.append(pair(SEVERITY, _phrased(a), _phrased(b), CONFIDENCE[SEVERITY],
                                sections))
    return out


def _the_one_lesion(ctx: StudyContext, a: Statement, b: Statement) -> bool:
    """Two measured lesions are one: neither counts more than one, and each is the only
    lesion its section names or both are placed (the same region)."""
    if (a.count or 1) != 1 or (b.count or 1) != 1 or plural(a.finding.text) \
            or plural(b.finding.text):
        return False
    if a.location is not None and b.location is not None:
        return True
    sections = _sections(ctx)
    for s in (a, b):
        named = [o for o in _stated(ctx) if is_a(o.concept, "lesion")
                 and sections[o.sentence] == sections[s.sentence]]
        if len(named) != 1:
            return False
    return True


# ---- count ---------------------------------------------------------------------------------------

_ONE_ARTICLE_RE = re.compile(r"(?:there is |there was )?an? ", re.IGNORECASE)


def counts(ctx: StudyContext) -> list[Contradiction]:
    """One against several of a finding a report counts: "Solitary ... nodule" against "two
    nodules", "Single acute right rib fracture" against fractures of three ribs."""
    sections = _sections(ctx)
    stated = _sentence_totals([s for s in _stated(ctx) if s.count is not None])
    out = []
    for n, a in enumerate(stated):
        for b in stated[n + 1:]:
            if a.sentence == b.sentence or not overlapping(a.concept, b.concept):
                continue
            if not (sides_overlap(a, b) and places_overlap(a, b)):
                continue
            # "single" against two or more; "a" against a number said ("two", "multiple")
            one_many = any(x.count == 1 and y.count >= 2 and (
                x.count_said or (_ONE_ARTICLE_RE.match(x.phrase) and y.count_said))
                for x, y in ((a, b), (b, a)))
            numbers = a.count_said and b.count_said and MANY not in (a.count, b.count) \
                and a.count != b.count and min(a.count, b.count) >= 2
            if one_many or numbers:
                out.append(pair(COUNT, _phrased(a), _phrased(b), CONFIDENCE[COUNT],
                                sections))
    return out


def _sentence_totals(stated: list[Statement]) -> list[Statement]:
    """One sentence that names a finding several times ("a 6 mm nodule in the right upper
    lobe and a 9 mm nodule in the left lower lobe") says how many there are: the sum, on
    whichever sides they are. Mentions told apart by side, place or size are several; a
    number said ("two nodules: ...") already counts the mentions after it."""
    out: list[Statement] = []
    summed: list[Statement] = []  # totals this function made (their count is said by it)
    for s in stated:
        same = [o for o in out if o.sentence == s.sentence and o.concept == s.concept]
        if same and ((same[0].count_said and same[0] not in summed) or s.count_said or (
                (same[0].laterality, same[0].location, same[0].size_mm)
                == (s.laterality, s.location, s.size_mm))):
            continue
        if not same:
            out.append(s)
            continue
        first = same[0]
        total = MANY if MANY in (first.count, s.count) else first.count + s.count
        side = first.laterality if first.laterality == s.laterality else (
            "bilateral" if first.laterality and s.laterality else None)
        place = first.location if first.location == s.location else None
        total_of = replace(first, count=total, count_said=True, laterality=side, location=place)
        out[out.index(first)] = total_of
        summed.append(total_of)
    return out


# ---- temporal change -------------------------------------------------------------------------

def changes(ctx: StudyContext) -> list[Contradiction]:
    """Two statements of one finding whose changes since the prior exam exclude each other:
    new and unchanged (or still there), resolved and still there, better and worse,
    unchanged and better or worse."""
    sections = _sections(ctx)
    # "nearly resolved" is better, still there, though the negation reads "resolved" as absent
    told = [s for s in _image(ctx) if not s.summary and s.told and s.temporal is not None
            and (s.now == PRESENT or s.temporal in (GONE, BETTER))]
    out = []
    for n, a in enumerate(told):
        for b in told[n + 1:]:
            if a.sentence == b.sentence or not same_finding(a, b):
                continue
            if a.laterality != b.laterality or not places_overlap(a, b):
                continue
            if a.device and (not _one_device(a, b) or {a.temporal, b.temporal} == {GONE, NEW}):
                continue  # a tube removed and a new one placed are two tubes
            gone = [x for x in (a, b) if x.temporal == GONE]
            if len(gone) == 1:
                there = b if gone[0] is a else a
                if there.now != PRESENT:
                    continue
            elif gone or frozenset((a.temporal, b.temporal)) not in _EXCLUDING:
                continue
            out.append(pair(TEMPORAL, _phrased(a), _phrased(b), CONFIDENCE[TEMPORAL],
                            sections, by_section=True))
    return out + _gone_but_there(ctx, told, sections)


_RESIDUAL_RE = re.compile(r"\b(?:residual|remaining|remains?|left ?over|trace|minimal|tiny)\b",
                          re.IGNORECASE)


def _gone_but_there(ctx: StudyContext, told: list[Statement],
                    sections: dict[int, str]) -> list[Contradiction]:
    """A finding said to be gone ("Resolved right pleural effusion.") and stated there, with no
    word of a change, in another sentence ("Small right pleural effusion."; "Interval removal
    of the left chest tube." / "Left chest tube in place."); not a residue ("trace residual
    effusion"), not a tube of another kind or one called new (one removed, another placed)."""
    out = []
    gone = [s for s in told if s.temporal == GONE]
    there = [s for s in _stated(ctx) if s.temporal is None
             and not _RESIDUAL_RE.search(s.phrase or s.words)
             and not (s.grade is not None and s.grade[1] == 0)]
    for g in gone:
        for t in there:
            if g.sentence == t.sentence or not same_finding(g, t):
                continue
            if g.device and (g.concept != t.concept or not _one_device(g, t)):
                continue
            if g.laterality != t.laterality or not places_overlap(g, t):
                continue
            first, second = sorted((g, t), key=lambda s: s.sentence)
            out.append(pair(TEMPORAL, _phrased(first), _phrased(second), CONFIDENCE[TEMPORAL],
                            sections, by_section=True))
    return out


def nothing_changed(ctx: StudyContext) -> list[Contradiction]:
    """A sentence that says nothing changed since the prior exam, against another that calls a
    finding new, gone, better or worse ("No interval change." / "Left basilar opacity is new
    since the prior exam."). "No significant change" leaves room for a slight improvement or
    worsening, not for a new or resolved finding."""
    sections = _sections(ctx)
    out = []
    for j in ctx.image_sentences:
        sentence = ctx.sentence(j)
        said = nothing_changed_said(sentence.text)
        if said is None or ctx.findings.get(j):
            continue
        excluded = (NEW, GONE) if said == "significant" else (NEW, GONE, BETTER, WORSE)
        for s in _image(ctx):
            if s.sentence == j or s.summary or not s.told or s.temporal not in excluded:
                continue
            if s.temporal != GONE and s.now != PRESENT:
                continue
            unchanged = replace(s.finding, sentence_index=j, status=PRESENT, laterality=None,
                                severity=None, location=None, comparison=UNCHANGED,
                                start=sentence.start, end=sentence.end, section=sentence.section,
                                text=sentence.text, cue=None, implied=True)
            out.append(pair(TEMPORAL, Claim(j, unchanged, sentence.text.rstrip(". ")),
                            _phrased(s), CONFIDENCE[TEMPORAL], sections, by_section=True))
    return out


def change_words(temporal: str | None) -> str:
    return _CHANGE_WORDS.get(temporal or "", "")


# ---- devices ---------------------------------------------------------------------------------

def devices(ctx: StudyContext) -> list[Contradiction]:
    """One tube or line (same device, same side or no side) in standard position in one
    sentence and out of place in another ("The ETT tip is at the level of the carina." / "ETT
    in standard position."), or with its tip at two places that do not touch ("tip in a
    distal right lower lobe pulmonary artery branch" / "tip in the main pulmonary artery"),
    or two distances above the carina 2 cm or more apart."""
    sections = _sections(ctx)
    told = [s for s in _image(ctx) if s.device and s.committed and s.now == PRESENT
            and (s.position is not None or s.place is not None)]
    out = []
    for n, a in enumerate(told):
        for b in told[n + 1:]:
            if a.sentence == b.sentence or a.concept != b.concept or not _one_device(a, b):
                continue
            if a.temporal in (NEW, GONE) or b.temporal in (NEW, GONE):
                continue  # a tube placed or removed since: two tubes, or none
            positions = {a.position, b.position}
            conflict = positions == {"wrong", "standard"}
            if not conflict and a.place and b.place and not places_agree(a.place, b.place):
                conflict = True
            if not conflict and a.distance_cm is not None and b.distance_cm is not None:
                conflict = abs(a.distance_cm - b.distance_cm) >= 2
            if conflict:
                out.append(pair(DEVICE, _phrased(a), _phrased(b), CONFIDENCE[DEVICE],
                                sections))
    return out


def _one_device(a: Statement, b: Statement) -> bool:
    """Two statements of one tube or line: its kinds meet (a PICC is not a jugular line) and
    its sides agree."""
    if a.kinds and b.kinds and not a.kinds & b.kinds:
        return False
    return a.laterality == b.laterality or None in (a.laterality, b.laterality)


RULES = (hierarchy_presence, statement_sides, device_sides, grades, counts, changes,
         nothing_changed, devices)

__all__ = ["RULES", "change_words", "changes", "counts", "device_sides", "devices", "grades",
           "hierarchy_presence", "nothing_changed", "statement_sides"]

