"""What keeps two statements that only look opposed from being called a contradiction.

Each guard names a way real reports word two true statements that share an observation:
a hedge, a finding stated as old or prior, a denial narrowed by its own words ("no new
consolidation", "no large effusion", "no displaced fracture"), a summary that leaves room
("other than the effusion"), another side or place. docs/audit.md lists them.
"""
from __future__ import annotations

import re
from functools import lru_cache

from workers.nlp.denial_words import last_denial_end
from workers.nlp.findings import ABSENT, Finding
from workers.nlp.hedges import speaks_of_history
from workers.nlp.hierarchy import is_a
from workers.nlp.vocabulary import LATERALITY_RE, LOCATION_RE, SEVERITY_RE, concept_spans
from workers.study.context import STOPWORDS

# A claim the radiologist did not commit to (``hedged``) is no side of a contradiction, nor
# is a finding stated as past (``speaks_of_history``, workers/nlp/hedges.py). "Prior" or
# "previous" counts only just before the finding ("prior right pneumothorax"): "improved since
# the prior exam" speaks of a finding that is there.
_PRIOR_BEFORE_RE = re.compile(r"\b(?:prior|previous(?:ly)?(?: \w+)?)\s+(?:[\w-]+\s+){0,2}$",
                              re.IGNORECASE)
# A sentence that revises the report ("after further review ...") replaces what it contradicts.
REVISION_RE = re.compile(r"\b(?:after (?:further|additional) review|on (?:further )?review|"
                         r"in retrospect|retrospectively|addendum|correction|corrected|"
                         r"amended|revised)\b", re.IGNORECASE)
# Old or lasting: a finding of years is not what a denial of this film's findings is about.
_LASTING = (r"old|healed|healing|chronic|remote|longstanding|long-standing|sequela\w*|"
            r"calcifi\w*|scar\w*|degenerative")
LASTING_RE = re.compile(rf"\b(?:{_LASTING})\b", re.IGNORECASE)
# Known or unchanged as well: what "no acute ..." and a normal summary do not deny.
CHRONIC_RE = re.compile(rf"\b(?:{_LASTING}|stable|unchanged|persistent|persists|again|"
                        r"redemonstrated|known|postoperative|postsurgical|compression)\b",
                        re.IGNORECASE)
# A denial with a threshold ("no appreciable pneumothorax", "no significant effusion") leaves
# room for a trace of the finding.
THRESHOLD_RE = re.compile(r"\b(?:appreciable|significant|substantial|definite|convincing|"
                          r"gross|frank|large|sizable|major|measurable)\b", re.IGNORECASE)
SMALL = frozenset({"trace", "minimal", "mild", "small", "borderline"})
# A summary that leaves room for what the report names ("no acute process other than the
# effusion", "lungs are otherwise clear").
EXCEPTION_RE = re.compile(r"\b(?:otherwise|except|apart from|aside from|other than|besides|"
                          r"remainder|rest of|elsewhere|beyond|additional|other|further|"
                          r"remaining)\b", re.IGNORECASE)
# A comparison that a denial is about ("no new consolidation", "no increase in effusion"):
# it says nothing about a finding that was there before.
CHANGE_CUES = frozenset({"new", "worsened", "increased", "decreased", "improved", "changed",
                         "interval", "resolved"})
_WORD_RE = re.compile(r"[a-z][a-z-]*")
# Words between a denial and its finding that do not narrow it. A redacted word ("No XXXX
# airspace disease", "No ___ effusion") may have been "other" or "new", so it narrows.
# "Other" and "more" narrow too: "no other nodules" leaves room for the nodules named.
_NEUTRAL = (STOPWORDS - {"xxxx", "other", "more"}) | {
    "evidence", "signs", "sign", "findings", "finding", "visible", "appreciable", "appreciated",
    "obvious", "demonstrable", "frank", "convincing", "radiographic", "the", "a", "an", "any",
    "is", "there"}


# The detector asks this of a sentence once per pair it is in; it is pure in the text.
@lru_cache(maxsize=16384)
def stated_as_prior(sentence: str, mention_start: int) -> bool:
    """The sentence speaks of history, or "prior"/"previous" stands just before the mention
    (at ``mention_start`` in the sentence)."""
    return bool(speaks_of_history(sentence)
                or _PRIOR_BEFORE_RE.search(sentence[:mention_start]))


def chronic(sentence: str) -> bool:
    """Old, lasting, known or unchanged (not what a summary of this film denies)."""
    return bool(CHRONIC_RE.search(sentence))


def lasting(sentence: str) -> bool:
    """Old or lasting (healed, chronic, long-standing, calcified, a scar)."""
    return bool(LASTING_RE.search(sentence))


def threshold_leaves_room(denial_sentence: str, stated: Finding) -> bool:
    """"No appreciable pneumothorax" beside "tiny pneumothorax": the denial has a threshold the
    small finding is below."""
    return stated.severity in SMALL and bool(THRESHOLD_RE.search(denial_sentence))


@lru_cache(maxsize=16384)
def revision(sentence: str) -> bool:
    return bool(REVISION_RE.search(sentence))


def change_denial(finding: Finding) -> bool:
    """The denial is about a change since a prior exam, not about the finding itself."""
    return finding.comparison in CHANGE_CUES


def denial_qualifiers(finding: Finding, sentence_text: str, sentence_start: int) -> set[str]:
    """Words between the last denial cue and the denied finding that narrow the denial
    ("no *new* consolidation", "no *displaced* fracture", "no *acute* fracture"): sides,
    sizes and places are compared by the rules themselves, function words narrow nothing."""
    before = sentence_text[:finding.start - sentence_start]
    end = last_denial_end(before)
    if end is None:
        return set()
    gap = before[end:].lower()
    if "___" in gap:
        return {"___"}
    gap = _own_item(gap)
    gap = LATERALITY_RE.sub(" ", SEVERITY_RE.sub(" ", LOCATION_RE.sub(" ", gap)))
    words = {w for w in _WORD_RE.findall(gap) if w not in _NEUTRAL}
    if is_a(finding.observation, "lesion"):
        words -= _LESION_NAME  # "no focal lung lesion" is the lesion's own name
    return words


# where a list of denied findings goes on to the next item ("no pneumothorax, pleural effusion or
# focal consolidation"): the words before it are the other findings', not this one's
_LIST_STEP_RE = re.compile(r"\s*(?:,|;|/|\bor\b|\band\b)\s*")


def _own_item(gap: str) -> str:
    """The words of a denial's gap that belong to the denied finding: after the last list step
    whose earlier words name another finding (the whole gap when none does: "no displaced or
    angulated fracture")."""
    steps = list(_LIST_STEP_RE.finditer(gap))
    for step in reversed(steps):
        if concept_spans(gap[:step.start()]):
            return gap[step.end():]
    return gap


# a lesion of the lung is focal by definition (hierarchy: nodule and mass are lesions)
_LESION_NAME = frozenset({"focal", "lung", "pulmonary"})
_SPREAD_RE = re.compile(r"\b(?:diffuse|multifocal|bilateral|both|widespread|scattered|patchy|"
                        r"extensive|multiple|several|bi(?:basilar|apical|hilar))\b", re.IGNORECASE)


# what makes a lung lesion suspicious in the report's own words (Fleischner: spiculated,
# irregular or lobulated margins, cavitation, growth; or the report says so)
_SUSPICIOUS_RE = re.compile(r"\b(?:spiculat\w*|irregular\w*|lobulat\w*|cavitar\w*|cavitat\w*|"
                            r"enlarging|growing|suspicious|concerning for (?:malignan|neoplas|"
                            r"metasta|cancer|carcinoma)\w*)", re.IGNORECASE)


def own_nature(stated: Finding, stated_sentence: str) -> set[str]:
    """Words of a denial that only name what the stated finding is ("no focal airspace
    consolidation" against "left basilar consolidation"): a consolidation or pneumonia fills
    the airspaces (the hierarchy's airspace opacity), a finding placed at one place on one
    side, not spread, is focal, and a lung lesion its own sentence calls spiculated, irregular,
    cavitary or growing is suspicious."""
    words = set()
    if is_a(stated.observation, "lesion") and _SUSPICIOUS_RE.search(stated_sentence):
        words.add("suspicious")
    if is_a(stated.observation, "airspace opacity"):
        words |= {"airspace", "air", "space", "alveolar"}
    if (stated.location is not None or stated.laterality in ("left", "right")) \
            and not _SPREAD_RE.search(stated_sentence):
        words.add("focal")
    return words


def sides_agree(denied: Finding, stated: Finding) -> bool:
    """A denial without a side denies every side; one with a side denies that side only (and
    so says nothing of a finding whose side the text does not give)."""
    if denied.laterality is None:
        return True
    return stated.laterality in (denied.laterality, "bilateral")


def places_agree(denied: Finding, stated: Finding) -> bool:
    """A denial placed somewhere ("no upper lobe opacity") denies that place only."""
    if denied.location is None:
        return True
    return stated.location == denied.location


def sizes_agree(denied: Finding, stated: Finding) -> bool:
    """A denial with a size ("no large effusion") denies that size only."""
    return denied.severity is None or denied.severity == stated.severity


def named_beside(findings) -> set[str]:
    """What a summary's own sentence names as there ("no acute process other than the
    effusion"): a finding that sentence denies ("lungs are clear without focal consolidation")
    makes the summary say more, not less."""
    return {f.observation for f in findings if not f.implied and f.status != ABSENT}


def exception_leaves_room(sentence_text: str, named: set[str], observation: str,
                          related) -> bool:
    """A summary that leaves room: an exception word with nothing named excuses everything
    ("lungs are otherwise clear"); observations the summary's own sentence names are excused
    ("no acute process other than the effusion")."""
    if any(related(observation, other) for other in named):
        return True
    return bool(EXCEPTION_RE.search(sentence_text)) and not named
