"""The curated radiology vocabulary: word lists kept as data files in this folder.

Each ``*.txt`` file is one list: a header of ``#`` comments saying what the list holds and
where its terms come from, then one term per line (lower case, one or more words). The lists:

radiology words (what a chest radiograph report writes about what it sees)
  findings.txt      findings, signs and descriptors of findings
  devices.txt       tubes, lines, implants and their parts
  positions.txt     where devices sit or end (including the upper abdomen and the neck)
  anatomy.txt       chest anatomy and regions
  procedures.txt    operations and interventions whose traces show on a film
  report_words.txt  verbs, hedges, qualifiers, technique and comparison words of reports

where a chest radiograph stops (workers/nlp/radiographic.py)
  partly_shown_organs.txt  organs at the film's edge: a place, never a condition by itself
  outside_chest.txt        sites outside the chest
  clinical_only.txt        conditions diagnosed clinically
  suggested_only.txt       thoracic diagnoses a film can suggest but not show

Lookups accept simple plurals ("catheters", "bullae", "bronchi") and hyphenated words whose
parts are known ("mid-gastric", "pull-through").
"""
from __future__ import annotations

import bisect
import re
from functools import cache, lru_cache
from pathlib import Path

_FOLDER = Path(__file__).parent
RADIOLOGY_LISTS = ("findings", "devices", "positions", "anatomy", "procedures", "report_words")
# Heads that make a word before them a place of something a film shows ("gastric" in
# "gastric tube", "gastric bubble", "gastric pull-through").
SEEN_THING_LISTS = ("devices", "positions", "anatomy", "procedures", "findings")
_PREFIXES = ("mid", "neo", "post", "pre", "para", "peri", "sub", "supra", "infra", "intra",
             "trans", "retro", "semi", "non", "re", "bi", "hemi")


# Words of longer terms that say nothing on their own ("field of view").
_FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "to", "in", "on", "at", "for", "with",
                             "and", "or"})


@cache
def terms(name: str) -> frozenset[str]:
    """The terms of list ``name`` (a file name without ".txt")."""
    lines = (_FOLDER / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(term for line in lines
                     if (term := " ".join(line.split("#", 1)[0].lower().split())))


@cache
def _words(names: tuple[str, ...]) -> frozenset[str]:
    """Every word of the lists' terms (single-word terms and the words of longer ones)."""
    return frozenset(w for name in names for term in terms(name) for w in term.split()
                     if w not in _FUNCTION_WORDS)


def _forms(word: str) -> tuple[str, ...]:
    """``word`` and the singular forms it may be a plural of."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s"):
        forms.append(word[:-1])
    if word.endswith("ae"):
        forms.append(word[:-1])
    if word.endswith("i"):
        forms.append(word[:-1] + "us")
    return tuple(forms)


# the lists never change in a process; the checks ask about the same words of every report
@lru_cache(maxsize=65536)
def in_lists(word: str, names: tuple[str, ...]) -> bool:
    """Whether ``word`` (any case, maybe plural or hyphenated) is a word of the lists."""
    word = word.lower()
    known = _words(names)
    if any(form in known for form in _forms(word)):
        return True
    parts = [p for p in word.split("-") if p]
    if len(parts) > 1:
        return all(p in _PREFIXES or any(f in known for f in _forms(p)) for p in parts)
    return False


def is_radiology_word(word: str) -> bool:
    """A word of the curated radiology vocabulary (findings, devices, positions, anatomy,
    procedures, report words)."""
    return in_lists(word, RADIOLOGY_LISTS)


@lru_cache(maxsize=1)
def _radiology_sorted() -> tuple[str, ...]:
    return tuple(sorted(_words(RADIOLOGY_LISTS)))


def is_fragment(word: str) -> bool:
    """A word cut short: no radiology word itself, but the start of a longer one
    ("pneumothor", "mediast", "Un")."""
    word = word.lower()
    if len(word) < 2 or is_radiology_word(word):
        return False
    words = _radiology_sorted()
    at = bisect.bisect_left(words, word)
    return at < len(words) and words[at].startswith(word) and words[at] != word


@cache
def term_pattern(names: tuple[str, ...]) -> re.Pattern:
    """One regular expression matching every term of the lists as whole words (longest first;
    spaces match any whitespace or a hyphen)."""
    alternatives = sorted({t for name in names for t in terms(name)}, key=len, reverse=True)
    body = "|".join(re.escape(t).replace(r"\ ", r"[\s-]+") for t in alternatives)
    return re.compile(r"(?<![a-z0-9-])(?:" + body + r")(?:e?s)?(?![a-z0-9])")


def term_spans(lower: str, names: tuple[str, ...] = RADIOLOGY_LISTS) -> list[tuple[int, int]]:
    """Spans of the lists' terms in lower-cased text."""
    return [m.span() for m in term_pattern(names).finditer(lower)]
