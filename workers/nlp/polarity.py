"""One answer to "is this negated, uncertain, historical?" for every caller.

The answer comes from ConText (workers/nlp/context.py) with the project's rules
(workers/nlp/rules/context_rules.tsv), the same pass that gives findings their status, so the
judge, the correction, the library statistics, the labels and the report context read a
sentence the same way. Callers that work on word tokens (library counts, sentence rewrites)
use the token helpers below, whose cue words are rules of that file (tested).

* ``assertion_at(sentence, start, end)``: what the cues of ``sentence`` say about the words at
  ``start:end`` (``.negated``, ``.uncertain``, ``.historical``, ``.affirmed``, ``.cue``);
* ``denial_before(text, end)``: the forward negation cue ("no", "without", "negative for",
  ...) that reaches ``end``, for the words between a denial and the finding it denies;
* ``signature``, ``negation_count``: a token sequence without its polarity, and its cue count;
* ``negations_of``, ``affirmations_of``: the usual ways to deny or affirm what tokens state.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from workers.nlp import context as ctx
from workers.nlp.vocabulary import concept_spans

Tokens = tuple[str, ...]
_WORD_RE = re.compile(r"\w+(?:[-'\u2019]\w+)*")


@dataclass(frozen=True)
class Polarity:
    """ConText's verdict on one span: the winning cue's category (None: affirmed) and text."""

    category: str | None
    cue: str | None

    @property
    def negated(self) -> bool:
        return self.category == ctx.NEGATED

    @property
    def uncertain(self) -> bool:
        """A possibility or a clinical question ("may", "cannot be excluded", "evaluate for")."""
        return self.category in (ctx.POSSIBLE, ctx.HYPOTHETICAL)

    @property
    def historical(self) -> bool:
        return self.category == ctx.HISTORICAL

    @property
    def affirmed(self) -> bool:
        """Stated present: no cue, or a probability ("likely", "consistent with")."""
        return self.category in (None, ctx.PROBABLE)


@lru_cache(maxsize=65536)
def assertion_at(sentence: str, start: int, end: int) -> Polarity:
    """What ``sentence``'s cues say about ``sentence[start:end]`` (read as one sentence): the
    verdict ``context.assert_targets`` gives the same span, alone or within its report (the
    findings' status), so every caller gets one answer."""
    if not sentence.strip() or start >= end:
        return Polarity(None, None)
    (assertion,) = ctx.assert_targets(sentence, [(0, len(sentence))], [(start, end)])
    return Polarity(assertion.category, assertion.cue)


def is_negated(sentence: str, start: int, end: int) -> bool:
    return assertion_at(sentence, start, end).negated


def _literals(category: str, direction: str) -> list[str]:
    return [lit for lit, cat, d, _ in ctx.RADIOLOGY_RULES if cat == category and d == direction]


_DENYING_WORDS = frozenset({"no", "not", "nor", "neither", "without", "negative", "free",
                            "absence", "absent"})


def _denial_words() -> list[str]:
    """The forward negation cues that deny in words ("no", "without", "negative", ...; not a
    course such as "resolution of", which a present finding's words may follow), less those
    that extend a shorter one ("no focal", "no evidence of" are "no"): what follows the
    shortest cue is the denied words."""
    literals = [lit for lit in _literals(ctx.NEGATED, "FORWARD")
                if re.fullmatch(r"[a-z ]+", lit) and _DENYING_WORDS.intersection(lit.split())]
    return [lit for lit in literals
            if not any(o != lit and lit.startswith(o + " ") for o in literals)]


def _alternation(literals) -> re.Pattern:
    words = sorted((lit for lit in literals if re.fullmatch(r"[a-z' -]+", lit)), key=len,
                   reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)


_DENIAL_RE = _alternation(_denial_words())
_PSEUDO_RE = _alternation(_literals(ctx.PSEUDO, "PSEUDO"))
_SCOPE = {lit: scope for lit, cat, d, scope in ctx.RADIOLOGY_RULES
          if cat == ctx.NEGATED and d == "FORWARD"}


# Of a finding's cue (``Finding.cue``): the words that deny it outright, not a course
# ("resolved", "removed", "cleared": a finding that was there and went).
_PLAIN_DENIAL_RE = re.compile(r"\b(?:no|not|without|negative)\b", re.IGNORECASE)
_NO_RE = re.compile(r"\bno\b", re.IGNORECASE)


def plain_denial(cue: str | None) -> bool:
    """Whether a finding's cue denies it outright (not "resolved", "removed", "cleared")."""
    return bool(cue) and bool(_PLAIN_DENIAL_RE.search(cue))


def denied_with_no(cue: str | None) -> bool:
    """Whether a finding's cue is a "no" ("no", "no evidence of"), not "without" or "not"."""
    return bool(cue) and bool(_NO_RE.search(cue))


def denial_before(text: str, end: int) -> re.Match | None:
    """The last forward negation cue of ``text`` before ``end`` that reaches it: within its
    rule's scope in words ("not" reaches four) and not part of a look-alike ("have not
    changed"); the cue as its shortest rule ("no" of "no focal"), so the words between it and
    ``end`` are the words it denies. None when no cue reaches ``end``."""
    pseudo = [m.span() for m in _PSEUDO_RE.finditer(text, 0, end)]
    for m in reversed(list(_DENIAL_RE.finditer(text, 0, end))):
        if any(a <= m.start() and m.end() <= b for a, b in pseudo):
            continue
        scope = _SCOPE.get(m.group().lower())
        if scope is not None and len(_WORD_RE.findall(text, m.end(), end)) > scope:
            continue
        return m
    return None


# --- tokens --------------------------------------------------------------------------------------
# Word-level cues for token sequences (library counts, rewrites). Each is a negation rule of
# context_rules.tsv (a test keeps them so): one place decides what denies.
NEGATION_WORDS = frozenset({"no", "not", "none", "nor"})
NEGATING_PAIRS = frozenset({("negative", "for"), ("free", "of")})
WITHOUT = "without"

_BE = ("is", "are", "was", "were")
_SEEN = ("seen", "noted", "identified", "present", "visualized", "visualised", "demonstrated",
         "evident", "detected", "appreciated", "observed")
_ARTICLES = ("a", "an", "any", "some")


def signature(tokens: Tokens) -> Tokens:
    """The tokens without their polarity: negation words dropped, "without" read as "with",
    "negative for" / "free of" dropped. Two sentences with one signature say the same thing
    with opposite (or equal) polarity."""
    out: list[str] = []
    skip = False
    for i, word in enumerate(tokens):
        if skip:
            skip = False
            continue
        if word in NEGATION_WORDS:
            continue
        if i + 1 < len(tokens) and (word, tokens[i + 1]) in NEGATING_PAIRS:
            skip = True
            continue
        out.append("with" if word == WITHOUT else word)
    return tuple(out)


def negation_count(tokens: Tokens) -> int:
    """How many polarity cues the tokens hold."""
    n = sum(1 for w in tokens if w in NEGATION_WORDS or w == WITHOUT)
    return n + sum(1 for pair in zip(tokens, tokens[1:]) if pair in NEGATING_PAIRS)


def _denied(tokens: Tokens) -> int | None:
    """How many findings of the vocabulary in ``tokens`` the one negation reads as denied
    (None when the tokens name none)."""
    text = " ".join(tokens)
    spans = concept_spans(text)
    if not spans:
        return None
    verdicts = ctx.assert_targets(text, [(0, len(text))], spans)
    return sum(1 for v in verdicts if v.category == ctx.NEGATED)


def _flips(original: Tokens, candidate: Tokens, deny: bool) -> bool:
    """Whether the one negation reads ``candidate`` as denying more (``deny``) or fewer
    findings than ``original``; True when neither names a finding (nothing to read)."""
    before, after = _denied(original), _denied(candidate)
    if before is None or after is None:
        return before is None and after is None
    return after > before if deny else after < before


def negations_of(tokens: Tokens) -> list[Tokens]:
    """The usual ways to deny what an affirmative sentence states, most specific first:
    "there is X" -> "there is no X"; "with X" -> "without X"; "evidence of X" -> "no evidence
    of X"; "X is seen" -> "X is not seen" and "no X is seen"; and "no X". Only those the one
    negation reads as denying every finding they name ("no there is a small X" is none)."""
    found: list[Tokens] = []
    t = list(tokens)
    for i in range(len(t) - 1):
        if t[i] == "there" and t[i + 1] in _BE:
            rest = t[i + 2:]
            if rest[:1] and rest[0] in _ARTICLES:
                rest = rest[1:]
            found.append(tuple(t[:i + 2] + ["no"] + rest))
            break
    for i, word in enumerate(t):
        if word == "with":
            found.append(tuple(t[:i] + [WITHOUT] + t[i + 1:]))
            break
    for i in range(len(t) - 1):
        if t[i] == "evidence" and t[i + 1] == "of" and (i == 0 or t[i - 1] != "no"):
            found.append(tuple(t[:i] + ["no"] + t[i:]))
            break
    for i in range(1, len(t) - 1):
        if t[i] in _BE and t[i + 1] in _SEEN:
            found.append(tuple(t[:i + 1] + ["not"] + t[i + 1:]))
            break
    start = 1 if t[:1] and t[0] in _ARTICLES else 0
    found.append(tuple(["no"] + t[start:]))
    return [f for f in dict.fromkeys(found) if _flips(tuple(t), f, deny=True)]


def affirmations_of(tokens: Tokens) -> list[Tokens]:
    """The ways to undo a denial: drop "no"/"not", "without" -> "with", drop "negative for" /
    "free of". Only those the one negation reads as denying fewer findings than the sentence."""
    found: list[Tokens] = []
    t = list(tokens)
    for i, word in enumerate(t):
        if word in ("no", "not"):
            found.append(tuple(t[:i] + t[i + 1:]))
        elif word == WITHOUT:
            found.append(tuple(t[:i] + ["with"] + t[i + 1:]))
        elif i + 1 < len(t) and (word, t[i + 1]) in NEGATING_PAIRS:
            found.append(tuple(t[:i] + t[i + 2:]))
    return [f for f in dict.fromkeys(found) if f and _flips(tuple(t), f, deny=False)]


__all__ = ["NEGATING_PAIRS", "NEGATION_WORDS", "Polarity", "WITHOUT", "affirmations_of",
           "assertion_at", "denial_before", "is_negated", "negation_count", "negations_of",
           "signature"]
