"""The engine's per-text caches, emptied together: a benchmark that times "empty caches"
empties every one of them, and a new cache is listed here once."""
from __future__ import annotations

from workers.nlp import (
    context,
    entailment,
    findings,
    graph,
    lexicon,
    radiographic,
    sections,
    vocabulary,
)

PER_TEXT_CACHES = (context._verdicts, sections.parse_report, findings._cached,
                   vocabulary.concept_mentions, vocabulary.mentions_concept, findings._attributes,
                   findings._normal_statements, findings._comparison, entailment._entail,
                   graph._extract, radiographic._classify_terms, lexicon.in_lists)


def clear_caches() -> None:
    for cached in PER_TEXT_CACHES:
        cached.cache_clear()
