"""Where the words of a denial stand around a finding, for the correction's shape checks.

The one negation (``polarity.py``) says whether a finding is denied. The correction also asks
where the denial's words are, to read the words it puts around the finding ("no *mild*
cardiomegaly", "*no* ET tube ends ...", "Calcifications *are not seen*"): those questions are
answered here, with the cue words kept as data below. Each is a negation rule of
``rules/context_rules.tsv`` (a test keeps them so): "no" and "without" before a finding,
"not <verb of seeing>" after it.
"""
from __future__ import annotations

import re
from functools import lru_cache

# The forward cues whose next words are the denied finding's own ("no mild cardiomegaly",
# "without focal consolidation"); not "not" (a verb's: "is not seen", "does not demonstrate").
DENYING_BEFORE = ("no", "without")
# "<finding> is / are not <verb>" (backward rules "not seen", "not identified", ...)
SEEING_VERBS = ("seen", "demonstrated", "noted", "present", "identified", "visualized",
                "appreciated", "detected")

# Every cue that denies what follows it, for "which words stand between the denial and the
# finding" ("no new consolidation", "negative for acute fracture").
DENIAL_CUES = ("no", "without", "negative for", "free of", "nor")

_BEFORE = "(?:" + "|".join(DENYING_BEFORE) + ")"
_CUES_RE = re.compile(r"\b(?:" + "|".join(DENIAL_CUES) + r")\b", re.IGNORECASE)
_STARTS_RE = re.compile(_BEFORE + r"\b", re.IGNORECASE)
_ENDS_RE = re.compile(r"\b" + _BEFORE + r"\s*$", re.IGNORECASE)
_AFTER_RE = re.compile(r"^(?:[\w-]+\s+){0,5}?(?:is|are)\s+not\s+(?:[\w-]+\s+)?(?:"
                       + "|".join(SEEING_VERBS) + r")\b", re.IGNORECASE)


@lru_cache(maxsize=8)
def _words_before_end(fewest: int, most: int) -> re.Pattern:
    words = r"(?:[\w-]+\s+){" + f"{fewest},{most}" + "}"
    return re.compile(r"\b" + _BEFORE + r"\s+(?P<words>" + words + ")$", re.IGNORECASE)


# The words that deny what follows them within a clause ("heart is not enlarged").
NEGATING_WORDS = ("no", "not", "without")
_NEGATING_RE = re.compile(r"\b(?:" + "|".join(NEGATING_WORDS) + r")\b", re.IGNORECASE)


def negating_words(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each "no", "not" and "without" of ``text``, in order."""
    return [m.span() for m in _NEGATING_RE.finditer(text)]


def last_denial_end(before: str) -> int | None:
    """Where the last denial cue of ``before`` (the text before a finding) ends; None when
    it holds none."""
    cues = list(_CUES_RE.finditer(before))
    return cues[-1].end() if cues else None


def denied_words(before: str, fewest: int = 0, most: int = 4) -> str | None:
    """The words between a "no" / "without" and the end of ``before`` (the text before a
    finding) when they are ``fewest`` to ``most`` words, each followed by a space: "mild " of
    "No mild " (and "" of "No "). None when no such denial ends ``before``."""
    m = _words_before_end(fewest, most).search(before)
    return m.group("words") if m else None


def denial_starts(text: str, pos: int) -> bool:
    """Whether a "no" / "without" begins at ``pos`` of ``text`` ("..., notably no
    pneumothorax")."""
    return _STARTS_RE.match(text, pos) is not None


def ends_with_denial(text: str) -> bool:
    """Whether ``text`` ends with a "no" / "without" (and spaces): the words it denies follow."""
    return _ENDS_RE.search(text) is not None


def denied_after(text: str) -> bool:
    """Whether ``text`` (the words after a finding) begins by denying it within its noun
    phrase: "are not seen", "is not clearly identified", "on the left is not seen"."""
    return _AFTER_RE.search(text) is not None
