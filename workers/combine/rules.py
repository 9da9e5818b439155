"""Site rules that remove known false-positive patterns from the combined flags (Lasko et al.).

* restates_sentence — the explanation merely restates the sentence: word-trigram Jaccard
  similarity (``jaccard3``) or normalised edit similarity (``edit``) of the two, lower-cased,
  at or above the rule's threshold;
* omission — the explanation describes something the report leaves out rather than a wrong
  claim (the rule's pattern, or the built-in wording ``OMISSION_PATTERN``);
* pattern — the explanation matches the rule's regular expression;
* harm_below — the detection's harm is below the rule's level.
"""
from __future__ import annotations

import re
from functools import lru_cache

from workers.combine.config import (
    EDIT,
    HARM_BELOW,
    JACCARD3,
    OMISSION,
    OMISSION_PATTERN,
    PATTERN,
    RESTATES_SENTENCE,
    FilterRule,
)
from workers.types import Detection, Harm

_WORD_RE = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    return _WORD_RE.findall(text.lower())


def trigram_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' word trigrams (word sets when either text has
    fewer than three words)."""
    wa, wb = _words(a), _words(b)
    n = 3 if len(wa) >= 3 and len(wb) >= 3 else 1
    ga = {tuple(wa[i:i + n]) for i in range(len(wa) - n + 1)}
    gb = {tuple(wb[i:i + n]) for i in range(len(wb) - n + 1)}
    if not ga or not gb:
        return 0.0
    return len(ga & gb) / len(ga | gb)


def edit_similarity(a: str, b: str, at_least: float | None = None) -> float:
    """1 − Levenshtein distance / the longer length, over lower-cased, space-normalised
    text. With ``at_least``, the count stops (returning a figure below it) as soon as every
    path through the table already costs too much: a row's least cost is a lower bound of the
    distance, so the answer to ``>= at_least`` is the same."""
    a, b = " ".join(_words(a)), " ".join(_words(b))
    longest = max(len(a), len(b))
    if longest == 0:
        return 1.0
    if min(len(a), len(b)) == 0:
        return 0.0
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        previous = current
        if at_least is not None and 1.0 - min(current) / longest < at_least:
            return 1.0 - min(current) / longest
    return 1.0 - previous[-1] / longest


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.IGNORECASE)


def matches(rule: FilterRule, detection: Detection, sentence: str) -> bool:
    """Whether ``rule`` removes ``detection`` (on a sentence whose text is ``sentence``)."""
    if rule.kind == RESTATES_SENTENCE:
        if rule.metric == EDIT:
            longer = max(len(detection.explanation), len(sentence), 1)
            if min(len(detection.explanation), len(sentence)) / longer < rule.threshold:
                return False  # lengths alone keep the similarity below the threshold
            return (edit_similarity(detection.explanation, sentence, rule.threshold)
                    >= rule.threshold)
        if rule.metric == JACCARD3:
            return trigram_jaccard(detection.explanation, sentence) >= rule.threshold
        return False
    if rule.kind == OMISSION:
        return bool(_compiled(rule.pattern or OMISSION_PATTERN).search(detection.explanation))
    if rule.kind == PATTERN:
        return bool(rule.pattern) and bool(_compiled(rule.pattern).search(detection.explanation))
    if rule.kind == HARM_BELOW:
        return Harm(detection.harm).rank < Harm.parse(rule.harm).rank
    return False


def first_match(rules, detection: Detection, sentence: str) -> FilterRule | None:
    return next((rule for rule in rules if matches(rule, detection, sentence)), None)
