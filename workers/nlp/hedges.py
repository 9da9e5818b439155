"""Hedges and history: whether a whole sentence commits to what it says about this film.

ConText (``context.py``) gives each finding its status. The contradiction detector and the
correction also ask two questions of a whole sentence, answered here so that no detector keeps
its own list: is anything in it hedged (a doubt, a differential, a question), and does it speak
of the past (history, a resolved finding). The cue words are data below; each entry is a regular
expression fragment (``possibl\\w*`` covers "possible", "possibly", "possibility").
"""
from __future__ import annotations

import re
from functools import lru_cache

# A claim the radiologist did not commit to ("may", "cannot be excluded", "?").
DOUBT = ("may", "might", "could", r"possibl\w*", r"probabl\w*", "likely", r"question\w*",
         r"questionabl\w*", r"suspect\w*", "suspicious", r"concern\w*", r"suggest\w*",
         "versus", "vs", "differential", r"consider\w*", "cannot", "can ?not",
         "not (?:be )?excluded", "equivocal", "indeterminate", "if", "whether", r"evaluat\w*",
         "rule out", r"presum\w*", r"favou?r\w*", "borderline")
# What leaves a list of findings open, so that "A or B" is a differential rather than two
# findings stated at once: a doubt, or words that offer alternatives.
OPEN_CHOICE = ("may", "might", "could", r"possibl\w*", r"probabl\w*", "likely", "versus", "vs",
               r"question\w*", r"suspect\w*", r"concern\w*", r"suggest\w*", r"represent\w*",
               r"reflect\w*", "either", "differential", r"consider\w*", r"favou?r\w*", "cannot",
               "can not", "not excluded", "or other", "and/or")
# A hedge that only leaves a finding open, which a denial of it may stand beside ("pneumonia
# cannot be excluded" and "no definite pneumonia"), and the cues that lean to a finding
# ("concerning for pneumonia"), which its outright denial contradicts.
ONLY_OPEN = (r"(?:cannot|can ?not|not|be) (?:be )?(?:excluded|ruled out)", "versus", "vs", "or",
             "differential", r"question(?:able)?")
LEANING = (r"concern\w*", r"suspici\w*", r"suspect\w*", "likely", r"probabl[ey]", r"suggest\w*",
           "worrisome", "compatible", r"favou?r\w*", r"represent\w*")
# The past: a prior exam's finding or the patient's history is no claim about this film.
PATIENT_HISTORY = ("history of", "h/o", "status post", "s/p", "in the past", "formerly")
HISTORY = (*PATIENT_HISTORY, "no longer", "resolved", "resolution")


def _words(fragments: tuple[str, ...]) -> str:
    return r"\b(?:" + "|".join(fragments) + r")\b"


_DOUBT_RE = re.compile(_words(DOUBT) + r"|\?", re.IGNORECASE)
_OPEN_CHOICE_RE = re.compile(_words(OPEN_CHOICE), re.IGNORECASE)
_ONLY_OPEN_RE = re.compile(_words(ONLY_OPEN), re.IGNORECASE)
_LEANING_RE = re.compile(_words(LEANING), re.IGNORECASE)
_HISTORY_RE = re.compile(_words(HISTORY), re.IGNORECASE)
_PATIENT_HISTORY_RE = re.compile(_words(PATIENT_HISTORY), re.IGNORECASE)


@lru_cache(maxsize=16384)
def hedged(sentence: str) -> bool:
    """Anything in the sentence is doubted, weighed or asked."""
    return bool(_DOUBT_RE.search(sentence))


def leaves_choice_open(sentence: str) -> bool:
    """The sentence weighs alternatives rather than stating each ("may represent A or B")."""
    return bool(_OPEN_CHOICE_RE.search(sentence))


def leaves_open(sentence: str) -> bool:
    """The sentence's hedge only leaves a finding open ("cannot be excluded", "versus")."""
    return bool(_ONLY_OPEN_RE.search(sentence))


def leans_to(cue: str) -> bool:
    """A hedge's cue leans to the finding ("concerning for", "likely")."""
    return bool(_LEANING_RE.search(cue))


def speaks_of_history(sentence: str) -> bool:
    return bool(_HISTORY_RE.search(sentence))


def speaks_of_patient_history(sentence: str) -> bool:
    """The patient's history ("history of", "status post"), not a finding that resolved: a
    statement of a change since the prior exam ("has resolved") is news of this film."""
    return bool(_PATIENT_HISTORY_RE.search(sentence))


__all__ = ["DOUBT", "HISTORY", "LEANING", "ONLY_OPEN", "OPEN_CHOICE", "PATIENT_HISTORY", "hedged",
           "leans_to", "leaves_choice_open", "leaves_open", "speaks_of_history",
           "speaks_of_patient_history"]
