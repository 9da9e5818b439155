"""One model of what a report states (issue 31): every statement a node of the hierarchy with
its attributes, read once per report and used by every check that compares statements.

``statements(report)`` turns the findings of workers.nlp into ``Statement`` objects:

* a mention of a finding is one statement about its hierarchy node (the vocabulary's
  observation; an opacity of the airspaces is the node "airspace opacity");
* a normal statement ("lungs are clear", "no acute cardiopulmonary process", "heart size is
  normal") is one statement that denies what the hierarchy file says contradicts it;

each with its attributes: presence (present, absent, uncertain) and whether the radiologist
committed to it (no hedge, no history, no revision), side, place, grade (size or severity on
one scale), measured size, count, temporal change (new, unchanged, persists, better, worse,
gone), and for a tube or line its tip's place and whether that place is where it belongs.
Polarity is the one negation's (``polarity.py``, through the findings); nothing here decides
what denies.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from workers.nlp.findings import (
    ABSENT,
    IMAGE_SECTIONS,
    PRESENT,
    UNCERTAIN,
    Finding,
    clause_span,
    findings_tuple,
)
from workers.nlp.hedges import hedged, speaks_of_history, speaks_of_patient_history
from workers.nlp.hierarchy import (
    HIERARCHY,
    device_kinds,
    overlapping,
    places_in,
    position_verdict,
    readings_of_one,
)
from workers.nlp.polarity import assertion_at
from workers.nlp.sections import ParsedReport, as_parsed
from workers.nlp.vocabulary import (
    CONCEPT_BY_NAME,
    GLOBAL_BONE_PHRASE,
    GLOBAL_NORMAL_PHRASE,
    GLOBAL_NORMAL_RE,
    LATERALITY_RE,
    NON_LUNG_SITES,
    comparison_cue,
)

# ---- temporal change -------------------------------------------------------------------------
OLD = "old"              # there long before: healed, chronic, remote (no claim of the prior)
NEW = "new"              # was not there before
UNCHANGED = "unchanged"  # there before, the same now
PERSISTS = "persists"    # there before, still there (may have changed)
BETTER = "better"        # there before, less now
WORSE = "worse"          # there before, more now
GONE = "gone"            # there before, not now (resolved, removed)
TEMPORAL = (NEW, UNCHANGED, PERSISTS, BETTER, WORSE, GONE, OLD)
# the comparison cue of workers.nlp (vocabulary.comparison_cue) as a change
_CHANGE_OF_CUE = {"new": NEW, "unchanged": UNCHANGED, "stable": UNCHANGED, "again": PERSISTS,
                  "persistent": PERSISTS, "improved": BETTER, "decreased": BETTER,
                  "worsened": WORSE, "increased": WORSE, "resolved": GONE}
# changes the engine's cue does not name: a finding that developed or appeared is new, one
# larger is worse, one nearly resolved is better (not gone)
_MORE_CHANGES = ((re.compile(r"\b(?:near(?:ly)?|almost|partial(?:ly)?|partly|largely|mostly|"
                             r"incomplete(?:ly)?)\s+(?:resol\w+|clear\w*)", re.IGNORECASE),
                  BETTER),
                 (re.compile(r"\b(?:development|developed|appeared|newly|interval appearance)\b",
                             re.IGNORECASE), NEW),
                 (re.compile(r"\blarger\b", re.IGNORECASE), WORSE),
                 # a change said by its verb's tense or by "in size", in any report: "has
                 # slightly increased", "decreased in size", "has grown", "enlarging"
                 (re.compile(r"\b(?:ha(?:s|ve|d)\s+(?:\w+\s+)?increased|increased\s+in\s+"
                             r"(?:size|extent|amount)|ha(?:s|ve)\s+(?:\w+\s+)?grown|growing|"
                             r"enlarging|increasing)\b", re.IGNORECASE), WORSE),
                 (re.compile(r"\b(?:ha(?:s|ve|d)\s+(?:\w+\s+)?decreased|decreased\s+in\s+"
                             r"(?:size|extent|amount)|smaller(?!\s+(?:than|on)\b)|shrinking|decreasing)\b",
                             re.IGNORECASE), BETTER),
                 (re.compile(r"\bre-demonstrat\w*", re.IGNORECASE), PERSISTS),
                 # a tube or line put in since the prior exam is new
                 (re.compile(r"\b(?:interval\s+(?:placement|insertion)|newly\s+(?:placed|"
                             r"inserted)|ha(?:s|ve)\s+been\s+(?:placed|inserted))\b",
                             re.IGNORECASE), NEW))
# changes said in words often put after the finding, in its own phrase up to the next thing
# the sentence names ("Right effusion, not present on the prior exam.", "Left pneumothorax
# without significant change.")
_TRAILING_CHANGES = (
    # no change said by negating one ("no significant interval change in the
    # effusion", "without change", "not significantly changed")
    (re.compile(r"\b(?:no|without)\s+(?:significant\s+|appreciable\s+|"
                r"substantial\s+|definite\s+|evident\s+)?(?:interval\s+)?change\b"
                r"|\bnot\s+(?:significantly\s+|substantially\s+)?changed\b",
                re.IGNORECASE), UNCHANGED),
    # absent before said in words: "not present on the prior exam", "not seen previously"
    (re.compile(r"\bnot\s+(?:present|seen|visible|identified|evident|apparent)\s+"
                r"(?:(?:on|in)\s+(?:the\s+)?(?:prior|previous|earlier)\b|previously|before)",
                re.IGNORECASE), NEW),
    # the same as on the prior exam in words: "similar in size to the prior exam"
    (re.compile(r"\bsimilar\s+(?:in\s+(?:size|appearance|extent)\s+)?(?:to|compared\s+"
                r"(?:to|with))\s+(?:the\s+)?(?:prior|previous|earlier)", re.IGNORECASE),
     UNCHANGED),
    # more or less than on the prior exam ("less prominent than previously", "smaller than on
    # the prior exam"; "smaller than the right" is one side against the other)
    (re.compile(r"\b(?:less\s+(?:prominent|conspicuous|extensive|dense)|smaller)\s+than\s+"
                r"(?:on\s+)?(?:the\s+)?(?:prior|previous|earlier|before)", re.IGNORECASE),
     BETTER),
    (re.compile(r"\bmore\s+(?:prominent|conspicuous|extensive|dense)\s+than\s+(?:on\s+)?"
                r"(?:the\s+)?(?:prior|previous|earlier|before)", re.IGNORECASE), WORSE),
    (re.compile(r"\bstill\s+(?:present|seen|visible|noted|evident|identified)\b",
                re.IGNORECASE), PERSISTS),
)
# a finding of long standing: no change since the prior is claimed, only that it is not new
_OLD_RE = re.compile(r"\b(?:old|healed|chronic|remote|long-?standing|sequelae?)\b",
                     re.IGNORECASE)
# taking a tube out is its "resolution"
_REMOVED_RE = re.compile(r"\b(?:remov(?:ed|al)|extubat\w*|decannulat\w*|discontinued)\b",
                         re.IGNORECASE)
# "newly identified / newly seen" is news of this film, "no longer seen" a change too, which
# the engine's cue reads ("newly" is "new"; "no longer" is "resolved")

# A sentence that says, of the whole study, that nothing changed ("No interval change.",
# "Stable appearance of the chest.", "Unchanged from the prior exam."), naming no finding.
_NOTHING_CHANGED_RE = re.compile(
    r"^\W*(?:\d+[.)]\s*)?(?:(?:there is|there has been)\s+)?"
    r"(?:no (?P<degree>(?:significant|substantial|appreciable|definite|major) )?"
    r"(?:interval )?changes?|(?:stable|unchanged) (?:appearance|examination|exam|study|"
    r"radiograph|chest(?: radiograph)?)(?: of the chest)?|unchanged|stable)"
    r"(?: (?:from|since|compared (?:with|to)|relative to|in comparison (?:with|to)) (?:the )?"
    r"(?:prior|previous|last|most recent|recent)(?: [\w-]+){0,3})?\W*$", re.IGNORECASE)


def nothing_changed_said(sentence: str) -> str | None:
    """Whether ``sentence`` says, of the whole study, that nothing changed since the prior
    exam: "significant" when it only denies a significant change ("No significant interval
    change": a slight one may stand beside it), "any" otherwise; None when it does not."""
    m = _NOTHING_CHANGED_RE.match(sentence)
    if not m:
        return None
    return "significant" if m.group("degree") else "any"


# ---- grades: one scale for sizes and degrees (0 trace ... 3 large or severe) -----------------
_GRADE = {"trace": (0, 0), "minimal": (0, 0), "mild": (1, 1), "small": (1, 1),
          "borderline": (1, 1), "moderate": (2, 2), "severe": (3, 3), "large": (3, 3),
          "small to moderate": (1, 2), "mild to moderate": (1, 2), "moderate to large": (2, 3),
          "moderate to severe": (2, 3), "trace to small": (0, 1), "minimal to mild": (0, 1),
          "small to large": (1, 3)}
# an extent said in words, when no size word is given ("complete collapse of the left lower
# lobe", "patchy opacity", "subsegmental atelectasis")
_WHOLE_RE = re.compile(r"\b(?:complete(?:ly)?|entire|whole|total|white-?out|lobar)\b",
                       re.IGNORECASE)
_PART_RE = re.compile(r"\b(?:patchy|subtle|faint|hazy|streaky|linear|subsegmental|plate-?like|"
                      r"discoid|band-?like|minimal)\b", re.IGNORECASE)
_COLLAPSE_RE = re.compile(r"\bcollapse", re.IGNORECASE)
# how well a finding is seen is no size: "subtle" or "faint" (the vocabulary's "minimal") grades
# an opacity as a part of the lung, not as a trace the normal statements leave room for
_CONSPICUITY_RE = re.compile(r"\b(?:subtle|faint)\b", re.IGNORECASE)
_TRACE_RE = re.compile(r"\b(?:trace|tiny|minimal|minimally)\b", re.IGNORECASE)

# ---- measured sizes -----------------------------------------------------------------------------
_MEASURE_RE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*(?:x|by|\u00d7)\s*(\d+(?:\.\d+)?))?"
    r"(?:\s*(?:x|by|\u00d7)\s*(\d+(?:\.\d+)?))?\s*(mm|cm|millimeters?|centimeters?)\b"
    r"(?!\s+(?:above|below|superior to|inferior to|beyond|proximal to|distal to))",
    re.IGNORECASE)

# ---- counts ---------------------------------------------------------------------------------
MANY = 99  # two or more, how many not said
_NUMBERS = {"one": 1, "single": 1, "solitary": 1, "isolated": 1, "unifocal": 1, "two": 2,
            "pair": 2, "couple": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "multiple": MANY, "several": MANY,
            "numerous": MANY, "innumerable": MANY, "countless": MANY, "few": MANY,
            "many": MANY, "multifocal": MANY, "scattered": MANY, "bilateral": MANY,
            "both": MANY}
_COUNT_RE = re.compile(r"\b(" + "|".join(_NUMBERS) + r")\b", re.IGNORECASE)
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
             "ninth", "tenth", "eleventh", "twelfth")
_ORDINAL_RE = re.compile(r"\b(?:" + "|".join(_ORDINALS) + r"|(?:1[0-2]|[1-9])(?:st|nd|rd|th))\b"
                         r"(?:\s*(?:-|through|to)\s*(?:" + "|".join(_ORDINALS)
                         + r"|(?:1[0-2]|[1-9])(?:st|nd|rd|th)))?", re.IGNORECASE)
# a number just before the finding's words that is no size ("3 nodules", not "9 mm nodule")
_DIGIT_COUNT_RE = re.compile(r"(?<![\d.])(\d+)\s+(?!(?:mm|cm|millimet|centimet|x\b|by\b))"
                             r"(?:[a-z-]+\s+){0,5}$", re.IGNORECASE)
# a count said after the finding: "nodules (2)", "a nodule in each lung", "... and another"
_LISTED_RE = re.compile(r"\s*\(\s*(\d+)\s*\)")
# a count said as the sentence's predicate or in a phrase of its own: "the nodule is
# solitary", "nodules, two in number", "nodules in both lungs"
_SAID_AFTER_RE = re.compile(r"\s*(?:is|appears|remains)\s+(?:a\s+)?(solitary|single|isolated)\b"
                            r"|\s*,?\s*(\w+)\s+in\s+number\b", re.IGNORECASE)
_BOTH_LUNGS_RE = re.compile(r"\s+(?:in|within|throughout|involving)\s+both\s+lungs\b",
                            re.IGNORECASE)
_EACH_SIDE_RE = re.compile(r"\s+(?:in|on|at|of)\s+(?:each|either)\s+(?:lung|side|hemithorax|"
                           r"(?:upper|middle|lower)\s+lobe|base|apex)\b", re.IGNORECASE)
_ANOTHER_RE = re.compile(r"\b(?:and|with|plus)\s+(?:an)?other\s+(?:in|at|on|within|along|over|"
                         r"one|measuring|similar|smaller|larger)\b", re.IGNORECASE)
# findings a report counts (one nodule or several; one rib broken or three)
COUNTED = frozenset({"nodule", "mass", "lesion", "fracture", "chest tube"})

# ---- devices --------------------------------------------------------------------------------
_STANDARD_RE = re.compile(
    r"\b(?:in|at|with)\s+(?:an?\s+|the\s+)?(?:standard|satisfactory|appropriate|good|expected|"
    r"adequate|proper|acceptable|optimal|usual|unremarkable|typical)\s+(?:position|location|"
    r"placement|alignment)\b"
    r"|\b(?:appropriately|satisfactorily|well|adequately|properly|optimally|"
    r"correctly)[- ](?:positioned|placed|situated|sited|located)\b"
    r"|\bposition(?:ed)?\s+(?:is\s+)?(?:appropriately|satisfactorily|appropriate|satisfactory|"
    r"standard|adequate|good|unremarkable)\b"
    r"|\bterminat\w+\s+(?:appropriately|in\s+(?:good|satisfactory|appropriate)\s+position)",
    re.IGNORECASE)
# a tip reported out of place, or advice to move it
_MISPLACED_RE = re.compile(
    r"\b(?:mal-?position\w*|coiled|kinked|looped|buckled|too\s+(?:high|low|deep|distal|"
    r"proximal|shallow)|(?:should|could|can|may)\s+be\s+(?:advanced|withdrawn|retracted|"
    r"pulled\s+back|repositioned)|recommend\w*\s+(?:advanc\w+|withdraw\w+|retract\w+|"
    r"reposition\w+|pulling)|(?:repositioning|advancement|withdrawal|retraction)\s+(?:is\s+)?"
    r"(?:recommended|advised|suggested)|directed\s+(?:cranially|superiorly|upward))",
    re.IGNORECASE)
_LOOPED_RE = re.compile(r"coiled|looped|buckled", re.IGNORECASE)
_CARINA_DISTANCE_RE = re.compile(
    r"(\d+(?:\.\d+)?)\s*(?:cm|centimeters?)\s+(?:above|superior to|from)\s+(?:the\s+)?"
    r"(?:level\s+of\s+the\s+)?carina", re.IGNORECASE)
# an endotracheal tube's tip this many centimetres above the carina (the teaching: 5 +/- 2)
ETT_EXPECTED_CM = (3.0, 7.0)
ETT_WRONG_BELOW_CM = 2.0
ETT_WRONG_ABOVE_CM = 8.0
_TIP_RE = re.compile(r"\b(?:tip|tips|terminat\w+|ends?|ending|side\s*(?:hole|port)|"
                     r"lies|projects?|courses?|extends?|in|at|within|into)\b", re.IGNORECASE)

# ---- commitment ------------------------------------------------------------------------------
# "Prior" or "previous" just before the mention ("prior right pneumothorax") speaks of the
# prior exam's finding; "improved since the prior exam" speaks of one that is there.
_PRIOR_BEFORE_RE = re.compile(r"\b(?:prior|previous(?:ly)?(?: \w+)?)\s+(?:[\w-]+\s+){0,2}$",
                              re.IGNORECASE)
# A sentence that revises the report ("after further review ...") replaces what it contradicts.
REVISION_RE = re.compile(r"\b(?:after (?:further|additional) review|on (?:further )?review|"
                         r"in retrospect|retrospectively|addendum|correction|corrected|"
                         r"amended|revised)\b", re.IGNORECASE)

# an opacity of the airspaces (the hierarchy's "airspace opacity": it makes the lungs not clear)
_AIRSPACE_RE = re.compile(r"\b(?:air[- ]?space|alveolar|confluent|diffuse|widespread|"
                          r"multifocal|extensive|ground[- ]glass)\b", re.IGNORECASE)
AIRSPACE_OPACITY = "airspace opacity"
LOBAR_COLLAPSE = "lobar collapse"
# an opacity the sentence explains ("opacity likely atelectasis", "related to overlying soft
# tissue") stays a description
_EXPLAINED_RE = re.compile(r"\b(?:reflect\w*|represent\w*|relat\w* to|consistent with|"
                           r"compatible with|secondary to|due to|likely|probabl\w*|may|might|"
                           r"could|suggest\w*|attribut\w*|artifact\w*|overlying|projecting|"
                           r"correspond\w*|fat|nipple|soft tissue)\b", re.IGNORECASE)
# an opacity described as a line, a band, a network or a nodule is not of the airspaces
_NOT_AIRSPACE_RE = re.compile(r"\b(?:linear|streaky|strand\w*|band-?like|bands?|plate-?like|"
                              r"discoid|reticul\w*|interstitial|nodular|calcifi\w*|"
                              r"subsegmental|scar\w*|fibro\w*|density|densities|"
                              r"increased|prominent)\b", re.IGNORECASE)
_PLEURAL_ABNORMALITY_RE = re.compile(r"pleural abnormalit(?:y|ies)", re.IGNORECASE)
# places on one side only: the lingula and the heart's shadow are left, the middle lobe right
_SIDE_OF_PLACE = {"lingula": "left", "retrocardiac": "left", "middle lobe": "right"}
# the normal statements' phrases (findings' implied cue) -> the summary they are
_CARDIOPULMONARY_RE = re.compile(r"\b(?:cardiopulmonary|cardiothoracic|pulmonary|lungs?|"
                                 r"pleuropulmonary|intrathoracic|thoracic)\b", re.IGNORECASE)
NO_ACUTE_ABNORMALITY = "no acute abnormality"
_AERATED_RE = re.compile(r"\b(?:well[- ]?(?:aerated|expanded|inflated)|normally (?:expanded|"
                         r"aerated|inflated)|maintained|preserved)\b", re.IGNORECASE)
_CLEAR_RE = re.compile(r"\b(?:clear|normal|unremarkable|within normal limits|negative)\b",
                       re.IGNORECASE)


@dataclass(frozen=True)
class Statement:
    """One thing a report states about one node of the hierarchy.

    ``concept``: the hierarchy node (an observation, "airspace opacity", or for a normal
    statement the summary's name: "clear lungs"). ``summary``: it is a normal statement.
    ``status``: present / absent / uncertain as written; ``now``: absent also when the
    statement says the finding is gone ("has resolved", "removed"). ``told``: no hedge, no
    patient history, no revision; ``of_prior``: it names the prior exam's finding ("the
    previously described nodule"); ``committed``: told, and of this film. ``grade``: (low,
    high) on 0 trace .. 3 large / severe. ``size_mm``: the largest measured size.
    ``count``: how many (``MANY``: two or more); ``count_said``: a word says how many
    ("single", "two"), not only a plural.
    ``temporal``: NEW, UNCHANGED, PERSISTS, BETTER, WORSE, GONE or None. ``place``: a tube's
    or line's tip place (hierarchy file), ``distance_cm`` above the carina; ``position``:
    "expected", "wrong" or "standard" (the report calls it in standard position).
    ``words``: the words that make the claim; ``start``/``end``: its span in the report.
    """

    sentence: int
    section: str
    concept: str
    status: str
    summary: bool
    committed: bool
    told: bool
    of_prior: bool
    laterality: str | None
    location: str | None
    grade: tuple[float, float] | None
    size_mm: float | None
    count: int | None
    count_said: bool
    temporal: str | None
    place: str | None
    distance_cm: float | None
    position: str | None
    words: str
    start: int
    end: int
    finding: Finding
    kinds: frozenset[str] = frozenset()
    phrase: str = ""  # the words around the mention that say its attributes

    @property
    def image(self) -> bool:
        """The statement describes the images (FINDINGS, IMPRESSION, ...)."""
        return self.section in IMAGE_SECTIONS

    @property
    def now(self) -> str:
        if self.temporal == GONE and self.status != UNCERTAIN:
            return ABSENT
        return self.status

    @property
    def positive(self) -> bool:
        """Stated there now (present or possible)."""
        return self.now in (PRESENT, UNCERTAIN)

    @property
    def device(self) -> bool:
        return not self.summary and CONCEPT_BY_NAME[self.finding.observation].device


def summary_name(finding: Finding, sentence_text: str) -> str:
    """The normal statement a finding implied by one belongs to ("clear lungs", "no acute
    cardiopulmonary abnormality", ...)."""
    if finding.cue == GLOBAL_NORMAL_PHRASE:
        m = GLOBAL_NORMAL_RE.search(sentence_text.lower())
        words = m.group() if m else sentence_text
        return GLOBAL_NORMAL_PHRASE if _CARDIOPULMONARY_RE.search(words) \
            else NO_ACUTE_ABNORMALITY
    if finding.cue == GLOBAL_BONE_PHRASE:
        return GLOBAL_BONE_PHRASE
    if finding.cue == "clear lungs" and _AERATED_RE.search(sentence_text) \
            and not _CLEAR_RE.search(sentence_text):
        return "normal lung volumes"  # "the lungs are well aerated" speaks of their volume
    return finding.cue or ""


def stated_as_prior(sentence: str, mention_start: int) -> bool:
    """The sentence speaks of history, or "prior"/"previous" stands just before the mention
    (at ``mention_start`` in the sentence)."""
    return _stated_as_prior(sentence, mention_start)


@lru_cache(maxsize=16384)
def _stated_as_prior(sentence: str, mention_start: int) -> bool:
    return bool(speaks_of_history(sentence)
                or _PRIOR_BEFORE_RE.search(sentence[:mention_start]))


@lru_cache(maxsize=16384)
def revision(sentence: str) -> bool:
    return bool(REVISION_RE.search(sentence))


def _grade(finding: Finding, clause: str) -> tuple[float, float] | None:
    if finding.severity in _GRADE and not (finding.severity == "minimal"
                                           and _CONSPICUITY_RE.search(clause)
                                           and not _TRACE_RE.search(clause)):
        return _GRADE[finding.severity]
    if finding.observation == "atelectasis" and _COLLAPSE_RE.search(finding.text):
        return (3, 3)
    if finding.observation in ("opacity", "consolidation", "atelectasis", "pneumonia"):
        if _WHOLE_RE.search(clause):
            return (3, 3)
        if _PART_RE.search(clause):
            return (1, 1)
    return None


def _size_mm(window: str) -> float | None:
    sizes = []
    for m in _MEASURE_RE.finditer(window):
        value = max(float(g) for g in m.groups()[:3] if g)
        sizes.append(value * (10 if m.group(4).lower().startswith("c") else 1))
    return max(sizes) if sizes else None


def _count(finding: Finding, before: str, window: str) -> tuple[int | None, bool]:
    if finding.observation not in COUNTED:
        return None, False
    if finding.observation == "fracture":
        ribs = [_ribs_in(m.group()) for m in _ORDINAL_RE.finditer(window)]
        if ribs:
            return (MANY if None in ribs else sum(ribs)), True
    said = _COUNT_RE.findall(before)
    if said:
        return _NUMBERS[said[-1].lower()], True
    digits = _DIGIT_COUNT_RE.search(before)
    if digits and 0 < int(digits.group(1)) < 50:
        return int(digits.group(1)), True
    after = window[len(before) + finding.end - finding.start:]
    listed = _LISTED_RE.match(after)
    if listed and 0 < int(listed.group(1)) < 50:
        return int(listed.group(1)), True  # "nodules (2)"
    if not plural(finding.text) and (_EACH_SIDE_RE.match(after) or _ANOTHER_RE.search(after)):
        return 2, True  # "a nodule in each lung", "a nodule ... and another in the ..."
    said_after = _SAID_AFTER_RE.match(after)
    if said_after:
        word = (said_after.group(1) or said_after.group(2)).lower()
        if word in _NUMBERS:
            return _NUMBERS[word], True
        if word.isdigit() and 0 < int(word) < 50:
            return int(word), True
    if plural(finding.text) and _BOTH_LUNGS_RE.match(after):
        return MANY, True
    return (MANY if plural(finding.text) else 1), False


def _ordinal(word: str) -> int:
    word = word.lower()
    return _ORDINALS.index(word) + 1 if word in _ORDINALS else int(re.match(r"\d+", word).group())


def _ribs_in(words: str) -> int | None:
    """How many ribs an ordinal or a range of them names ("fourth" 1, "fourth through sixth"
    3, "4th-7th" 4); None for a range that runs backwards."""
    ends = re.findall(r"[a-z]+|\d+(?:st|nd|rd|th)", words.lower())
    ends = [e for e in ends if e in _ORDINALS or e[0].isdigit()]
    if len(ends) < 2:
        return 1
    first, last = _ordinal(ends[0]), _ordinal(ends[-1])
    return last - first + 1 if last >= first else None


def plural(words: str) -> bool:
    """The words end on a plural noun ("nodules", "bullae"; not "mass", "atelectasis")."""
    last = words.lower().split()[-1] if words.split() else ""
    if last.endswith(("ss", "sis", "us")):
        return False
    return last.endswith(("s", "ae")) or last in ("bronchi", "foci")


# "increased lung markings", "decreased vascular markings": descriptions even in a report that
# compares
_DESCRIBED_BY_DEGREE = frozenset({"interstitial markings", "hyperinflation", "emphysema",
                                  "hypoinflation"})


# one side measured against the other ("the left smaller than the right", "larger on the
# right", "right greater than left"): a distribution, no change since the prior
_SIDE_AGAINST_SIDE_RE = re.compile(
    r"\b(?:smaller|larger|bigger|greater|less|more)\s+(?:than\s+(?:on\s+)?(?:the\s+)?|"
    r"on\s+the\s+|in\s+the\s+)(?:left|right|contralateral|other)\b", re.IGNORECASE)


def _temporal(clause: str, sentence_change: str | None, finding: Finding,
              timed: bool, phrase: str) -> str | None:
    timed = timed and finding.observation not in _DESCRIBED_BY_DEGREE
    clause = _SIDE_AGAINST_SIDE_RE.sub(" ", clause)
    for words, change in _MORE_CHANGES:
        if words.search(clause):
            return change
    own = _CHANGE_OF_CUE.get(comparison_cue(clause.lower(), timed or None) or "")
    if own is None and CONCEPT_BY_NAME[finding.observation].device \
            and _REMOVED_RE.search(clause):
        return GONE
    for words, change in _TRAILING_CHANGES if own is None else ():
        if words.search(phrase):
            return change
    if own is None and sentence_change is None and _OLD_RE.search(clause):
        return OLD
    return own or sentence_change


def _sentence_change(lower: str) -> str | None:
    """The sentence's change when every cue it has says the same (applied to a mention whose
    own clause has none: "Endotracheal tube and enteric tube are unchanged in position"); a
    bare "increased" or "decreased" elsewhere in the sentence describes another thing."""
    lower = _SIDE_AGAINST_SIDE_RE.sub(" ", lower)
    change = _CHANGE_OF_CUE.get(comparison_cue(lower) or "")
    if change is None:
        return None
    changes = {_CHANGE_OF_CUE.get(comparison_cue(part) or "") for part in re.split(r"[,;]", lower)}
    changes.discard(None)
    return change if len(changes) <= 1 else None


def _device_position(finding: Finding, window: str, sentence: str
                     ) -> tuple[str | None, float | None, str | None]:
    """(tip place, distance above the carina, position) of a tube or line from the words after
    its name: "tip at the level of the carina", "5 cm above the carina", "in standard
    position", "coiled in the esophagus"."""
    device = finding.observation
    distance = None
    m = _CARINA_DISTANCE_RE.search(window)
    place, verdict = None, None
    if m:
        distance = float(m.group(1))
        place = "trachea"
        if distance < ETT_WRONG_BELOW_CM or distance > ETT_WRONG_ABOVE_CM:
            verdict = "wrong"
        elif ETT_EXPECTED_CM[0] <= distance <= ETT_EXPECTED_CM[1]:
            verdict = "expected"
        window = window[:m.start()] + " " * (m.end() - m.start()) + window[m.end():]
    if device == "support device" or not _TIP_RE.search(window):
        found = []
    else:
        found = places_in(window)
    for name, _, _ in found:
        v = position_verdict(device, name)
        if place is None or (v == "wrong" and verdict != "wrong"):
            place, verdict = name, v
    misplaced = _MISPLACED_RE.search(window)
    if misplaced and not (verdict == "expected" and _LOOPED_RE.fullmatch(misplaced.group())):
        verdict = "wrong"  # (a tube looped in the stomach is where it belongs)
    standard = _STANDARD_RE.search(window)
    if standard and verdict != "wrong":
        claimed = assertion_at(window, standard.start(), standard.end())
        verdict = "wrong" if claimed.negated else "standard"
    return place, distance, verdict


def _refined(finding: Finding, clause: str, sentence: str) -> str:
    """The statement's node: an opacity the sentence neither explains nor describes as a line,
    a band, a network or a nodule is an airspace opacity; atelectasis of a whole lobe is a
    lobar collapse."""
    if finding.observation == "atelectasis" and _grade(finding, clause) == (3, 3) \
            and finding.severity is None:
        return LOBAR_COLLAPSE
    if finding.observation == "opacity" and not _EXPLAINED_RE.search(sentence) \
            and not _NOT_AIRSPACE_RE.search(clause) and finding.location not in NON_LUNG_SITES \
            and (_AIRSPACE_RE.search(clause) or finding.location is not None
                 or finding.laterality is not None):
        return AIRSPACE_OPACITY
    return finding.observation


def _side(finding: Finding, before: str) -> str | None:
    """A device's side from its own words ("right IJ line ... tip in the right atrium" is a
    right line whatever its tip); a finding's side, else the side its place has."""
    if CONCEPT_BY_NAME[finding.observation].device:
        sides = {m.lastgroup for m in LATERALITY_RE.finditer(before.lower())}
        if not sides:
            return None
        return "bilateral" if "bilateral" in sides or len(sides) > 1 else sides.pop()
    if finding.laterality is None:
        return _SIDE_OF_PLACE.get(finding.location or "")
    return finding.laterality


def _told(finding: Finding, sentence_text: str, sentence_start: int) -> bool:
    """Not hedged itself (the one negation's reading of the mention, which names the cue of a
    probable finding), nor by a doubt before it in its sentence (``hedges.hedged``): in
    "spiculated mass, suspicious for malignancy" the doubt is the malignancy's, the mass is
    stated; no revision, not the patient's history."""
    if finding.status == UNCERTAIN or (finding.status == PRESENT and finding.cue):
        return False  # possible, or only likely ("likely represents a small effusion")
    if finding.status == PRESENT and hedged(sentence_text[:finding.start - sentence_start]):
        return False  # a doubt before it reaches it ("opacity to suggest a pneumonia")
    return not (revision(sentence_text) or speaks_of_patient_history(sentence_text))


def _of_prior(finding: Finding, sentence_text: str, sentence_start: int) -> bool:
    """The mention is the prior exam's finding ("prior right pneumothorax", "previously
    described nodule")."""
    return bool(_PRIOR_BEFORE_RE.search(sentence_text[:finding.start - sentence_start]))


def claim_words(finding: Finding) -> str:
    """A finding's words with its side and size where the mention does not say them ("large
    right pleural effusion"); a denial's words as written."""
    words = (finding.text or finding.observation).strip()
    lower = words.lower()
    side = finding.laterality if finding.laterality in ("left", "right") else None
    for attribute in (side, finding.severity):
        if attribute and attribute not in lower and finding.status != ABSENT:
            words = f"{attribute} {words}"
    return words


def _phrase(words: str, limit: int = 120) -> str:
    words = " ".join(words.split()).strip(" ,;:.")
    words = re.sub(r"^(?:and|or|with|but)\s+", "", words, flags=re.IGNORECASE)
    return words if len(words) <= limit else words[:limit - 1].rsplit(" ", 1)[0] + "\u2026"


def _statements(parsed: ParsedReport) -> tuple[Statement, ...]:
    by_sentence: dict[int, list[Finding]] = {}
    for f in findings_tuple(parsed.text):
        by_sentence.setdefault(f.sentence_index, []).append(f)
    out: list[Statement] = []
    # in a report that compares, "increased effusion" is a change, not a description
    timed = compares(parsed)
    for sentence in parsed.sentences:
        found = by_sentence.get(sentence.index, [])
        if not found:
            continue
        text, lower = sentence.text, sentence.text.lower()
        # where the next thing the sentence names begins (a generic "tip in the SVC" is the
        # named tube's own tip, "coiled in the esophagus" its position: not new mentions)
        mentions = [(f.start - sentence.start, f.end - sentence.start) for f in found
                    if not f.implied
                    and f.observation not in ("support device", "device malposition")]
        change = _sentence_change(lower)
        summaries: dict[str, Finding] = {}
        for f in found:
            if f.implied:
                name = summary_name(f, text)
                if f.text.lower() == "chest" and f.cue not in (GLOBAL_NORMAL_PHRASE,
                                                               GLOBAL_BONE_PHRASE):
                    continue  # "AP chest compared to ___: heart size normal" names the film
                if name in HIERARCHY.summaries and name not in summaries:
                    summaries[name] = f
                continue
            rel = (f.start - sentence.start, f.end - sentence.start)
            if f.status == ABSENT and _PLEURAL_ABNORMALITY_RE.fullmatch(f.text):
                # "no pleural abnormality" says the pleural spaces are clear
                summaries.setdefault("clear pleural spaces", f)
                continue
            c_start, c_end = clause_span(lower, *rel)
            clause = text[c_start:c_end]
            following = [a for a, _ in mentions if a >= rel[1]]
            w_end = min(following) if following else len(text)
            window = text[c_start:max(w_end, c_end)]
            after = text[rel[1]:w_end]
            count, said = _count(f, text[c_start:rel[0]], window)
            told = _told(f, text, sentence.start)
            of_prior = _of_prior(f, text, sentence.start)
            place = distance = position = None
            kinds: frozenset[str] = frozenset()
            if CONCEPT_BY_NAME[f.observation].device:
                place, distance, position = _device_position(f, after, text)
                kinds = device_kinds(f.observation, text[c_start:max(c_end, rel[1])])
            out.append(Statement(
                sentence=sentence.index, section=sentence.section,
                concept=_refined(f, clause, text), status=f.status, summary=False,
                committed=told and not of_prior, told=told, of_prior=of_prior,
                laterality=_side(f, text[c_start:rel[1]]), location=f.location,
                grade=_grade(f, clause),
                size_mm=_size_mm(window), count=count, count_said=said,
                temporal=_temporal(clause, change, f, timed, window), place=place,
                distance_cm=distance,
                position=position, words=claim_words(f), start=f.start, end=f.end,
                finding=f, kinds=kinds, phrase=_phrase(text[c_start:max(w_end, c_end)])))
        for name, f in summaries.items():
            out.append(Statement(
                sentence=sentence.index, section=sentence.section, concept=name,
                status=ABSENT, summary=True,
                committed=not (hedged(text) or revision(text)),
                told=not (hedged(text) or revision(text)), of_prior=False,
                laterality=f.laterality, location=f.location, grade=None, size_mm=None,
                count=None, count_said=False, temporal=change, place=None, distance_cm=None,
                position=None, words=text.rstrip(". "), start=sentence.start,
                end=sentence.end, finding=f))
    return tuple(sorted(_readings_share_a_side(out), key=lambda s: (s.sentence, s.start)))


def _readings_share_a_side(found: list[Statement]) -> list[Statement]:
    """A reading of a finding its sentence places ("Retrocardiac opacity in the left lower
    lobe, concerning for pneumonia") is on that finding's side (not of a bare "opacity", which
    only describes)."""
    out = []
    for s in found:
        if s.laterality is None and not s.summary and not s.device:
            sides = {o.laterality for o in found
                     if o.sentence == s.sentence and o is not s and o.laterality
                     and not o.summary and o.concept not in HIERARCHY.loose
                     and (overlapping(o.concept, s.concept)
                          or readings_of_one(o.concept, s.concept))}
            if len(sides) == 1:
                s = replace(s, laterality=sides.pop())
        out.append(s)
    return out


# ---- whether the report compares with an earlier study --------------------------------------
# An earlier study named in words: "prior studies", "previous radiograph", "comparison exam".
STUDY_RE = re.compile(
    r"\b(?:(?:prior|previous|earlier|old|outside|comparison)\s+(?:\w+\s+){0,2}?"
    r"(?:stud(?:y|ies)|exam(?:ination)?s?|imaging|images|films?|radiographs?|x-?rays?|"
    r"ct|cts|chest radiographs?|examinations?|reports?|comparisons?)"
    r"|(?:prior|previous)s?(?=\s+(?:is|are|was|were|for|available|on file)\b)"
    r"|comparison\s+(?:stud(?:y|ies)|exam(?:ination)?s?|films?|images))\b", re.IGNORECASE)
# What a COMPARISON line names when it names a study: a date, a redacted date, a kind of film.
_NAMES_A_STUDY_RE = re.compile(r"\d|_{2,}|\b(?:radiographs?|films?|stud(?:y|ies)|exam\w*|ct|"
                               r"x-?rays?|chest|prior|previous|earlier|dated?|views?)\b",
                               re.IGNORECASE)
_COMPARES_RE = re.compile(r"\b(?:compared|comparison|prior|previous(?:ly)?|interval|since|"
                          r"earlier|again|redemonstrat\w*|unchanged|stable|persist\w*|"
                          r"improv\w*|worsen\w*|progress(?:ed|ing|ion)|no longer|"
                          r"ha(?:s|ve)\s+(?:\w+\s+)?(?:increased|decreased|grown|resolved))\b",
                          re.IGNORECASE)


def denies_comparison(text: str, section: str) -> str | None:
    """The words by which a sentence says there is no earlier study to compare with ("None."
    on a COMPARISON line, "No prior studies available.", "without prior imaging"), or None.
    What denies is the one negation's (``polarity.assertion_at``); a COMPARISON line that
    names no study at all ("None.", "None available.", "N/A") says the same."""
    studies = list(STUDY_RE.finditer(text))
    denied = [m for m in studies if assertion_at(text, m.start(), m.end()).negated]
    if denied:
        return denied[0].group()
    if section == "comparison" and not _NAMES_A_STUDY_RE.search(text):
        return text.strip()
    return None


def compares(parsed: ParsedReport) -> bool:
    """The report compares with an earlier study: its COMPARISON line names one, or one of its
    image sentences speaks of a prior exam (and no sentence says there is none)."""
    if any(denies_comparison(s.text, s.section) for s in parsed.sentences):
        return False
    return any((s.section == "comparison" and s.text.strip())
               or (s.section in IMAGE_SECTIONS and _COMPARES_RE.search(s.text))
               for s in parsed.sentences)


# ---- comparing two statements ---------------------------------------------------------------

# Places that are one region for comparing two statements of a finding.
_REGIONS = ({"lower lobe", "base", "retrocardiac", "lower lung", "costophrenic angle"},
            {"upper lobe", "apex", "upper lung"}, {"middle lobe", "lingula", "midlung"},
            {"perihilar", "central"})


def region(location: str | None) -> str | None:
    """The region a place is part of (a lower lobe, a base and the retrocardiac lung are the
    lower region), to tell whether two statements speak of one place."""
    if location is None:
        return None
    for k, group in enumerate(_REGIONS):
        if location in group:
            return f"region{k}"
    return location


def places_overlap(a: Statement, b: Statement) -> bool:
    return a.location is None or b.location is None or region(a.location) == region(b.location)


def sides_overlap(a: Statement, b: Statement) -> bool:
    return a.laterality is None or b.laterality is None or a.laterality == b.laterality \
        or "bilateral" in (a.laterality, b.laterality)


def same_finding(a: Statement, b: Statement) -> bool:
    """The same finding, one narrower than the other or close (the hierarchy), or two readings
    of one thing at one place ("left lower lobe opacity" and "left lower lobe pneumonia")."""
    if a.concept == b.concept and a.concept in HIERARCHY.loose:
        # two "opacities" are one only at one place
        return a.location is not None and region(a.location) == region(b.location)
    if overlapping(a.concept, b.concept):
        return True
    return (readings_of_one(a.concept, b.concept)
            and a.location is not None and b.location is not None
            and region(a.location) == region(b.location))


@lru_cache(maxsize=4096)
def _cached(text: str) -> tuple[Statement, ...]:
    return _statements(as_parsed(text))


def statements(report: str | ParsedReport) -> tuple[Statement, ...]:
    """Every statement of ``report`` in reading order (cached per report text)."""
    text = report.text if isinstance(report, ParsedReport) else report
    return _cached(text)


__all__ = ["AIRSPACE_OPACITY", "BETTER", "COUNTED", "GONE", "LOBAR_COLLAPSE", "MANY", "NEW",
           "NO_ACUTE_ABNORMALITY", "OLD",
           "PERSISTS", "PRESENT", "REVISION_RE", "Statement", "TEMPORAL", "UNCHANGED", "WORSE",
           "nothing_changed_said", "places_overlap", "plural", "region", "revision",
           "same_finding", "sides_overlap", "stated_as_prior", "statements", "summary_name"]
