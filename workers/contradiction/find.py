"""Every contradiction of a report, once per pair of sentences, cached on its context."""
from __future__ import annotations

from workers.study.context import StudyContext

from .pairs import GLOBAL_NORMAL, PRESENCE, Contradiction
from .rules import RULES
from .statement_rules import RULES as STATEMENT_RULES

_CACHE_KEY = ("contradictions",)


def find_contradictions(ctx: StudyContext) -> list[Contradiction]:
    """The pairs of sentences of ``ctx``'s report that cannot both be true, in reading order.
    Two sentences that disagree on several findings make one pair: the most harmful one (the
    first kind of ``RULES`` among equals)."""
    if _CACHE_KEY in ctx._cache:
        return ctx._cache[_CACHE_KEY]
    best: dict[tuple[int, int], Contradiction] = {}
    for rule in (*RULES, *STATEMENT_RULES):
        for c in rule(ctx):
            kept = best.get(c.sentences)
            if kept is None or c.harm.rank > kept.harm.rank:
                best[c.sentences] = c
    found = _nearest_detail(ctx, sorted(best.values(), key=lambda c: c.sentences))
    ctx._cache[_CACHE_KEY] = found
    return found


def _nearest_detail(ctx: StudyContext, found: list[Contradiction]) -> list[Contradiction]:
    """A denial or normal statement that several sentences contradict is paired with those of
    its own section, else with those of the FINDINGS (the detailed part): an IMPRESSION that
    agrees with the findings ("Right lower lobe pneumonia." after "Dense consolidation ... in
    the right lower lobe") is not doubted because the findings also call the lungs clear."""
    section = {s.index: s.section for s in ctx.parsed.sentences}
    others: dict[int, list[int]] = {}
    for c in found:
        if c.kind in (PRESENCE, GLOBAL_NORMAL) and c.doubted is not None:
            others.setdefault(c.doubted, []).append(c.other_of(c.doubted).sentence)
    keep: dict[int, set[int]] = {}
    for normal, stated in others.items():
        for where in (section[normal], "findings"):
            chosen = {i for i in stated if section[i] == where}
            if chosen:
                keep[normal] = chosen
                break
        else:
            keep[normal] = set(stated)
    return [c for c in found
            if not (c.kind in (PRESENCE, GLOBAL_NORMAL) and c.doubted is not None)
            or c.other_of(c.doubted).sentence in keep[c.doubted]]
