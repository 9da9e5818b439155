"""Every contradiction of a report, once per pair of sentences, cached on its context."""
from __future__ import annotations

from workers.nlp.report import ReportContext

from .pairs import Contradiction
from .rules import RULES

_CACHE_KEY = ("contradictions",)


def find_contradictions(ctx: ReportContext) -> list[Contradiction]:
    """The pairs of sentences of ``ctx``'s report that cannot both be true, in reading order.
    Two sentences that disagree on several findings make one pair: the most harmful one (the
    first kind of ``RULES`` among equals)."""
    if _CACHE_KEY in ctx._cache:
        return ctx._cache[_CACHE_KEY]
    best: dict[tuple[int, int], Contradiction] = {}
    for rule in RULES:
        for c in rule(ctx):
            kept = best.get(c.sentences)
            if kept is None or c.harm.rank > kept.harm.rank:
                best[c.sentences] = c
    found = sorted(best.values(), key=lambda c: c.sentences)
    ctx._cache[_CACHE_KEY] = found
    return found
