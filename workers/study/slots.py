"""Library wordings for a gap in a report sentence: what the reference library writes where a
suspect term stands, used by the judge and the correction to propose a replacement."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from workers.library.stats import Tokens, tokenize, tokens_of
from workers.library.vectors import report_sentences

from .context import StudyContext


@dataclass(frozen=True)
class SlotFill:
    """A library wording for the gap left by removing ``sentence[start:end]``: ``words`` fill
    it ``count`` times among library sentences that share the whole sentence around the gap
    (``whole=True``) or only the three words on either side; ``nearby`` of those are in the
    k most similar reports; ``widened`` counts the words around the term the gap took in."""

    start: int
    end: int
    words: Tokens
    count: int
    whole: bool
    nearby: int = 0
    widened: int = 0


def _slot_bounds(tokens, start: int, end: int) -> tuple[int, int] | None:
    inside = [i for i, t in enumerate(tokens) if t.start < end and t.end > start]
    return (inside[0], inside[-1] + 1) if inside else None


def _widenings(left: int, right: int) -> list[tuple[int, int]]:
    """(left, right) widenings, fewest words first, left first (a name's modifiers stand
    before it)."""
    options = [(a, b) for a in range(left + 1) for b in range(right + 1)]
    return sorted(options, key=lambda ab: (ab[0] + ab[1], -ab[0]))


def neighbour_sentences(ctx: StudyContext):
    """How often the similar reports write each sentence (as words); a library report's
    counts are the library's own, not counted again for every report it is near."""
    key = ("neighbour_sentences",)
    if key not in ctx._cache:
        counts: Counter = Counter()
        for n in ctx.neighbours:
            known = ctx.library.sentence_counts(n) if ctx.library is not None else None
            counts.update(known if known is not None
                          else Counter(tokens_of(s) for s in report_sentences(n.text)))
        ctx._cache[key] = counts
    return ctx._cache[key]


def slot_fills(ctx: StudyContext, index: int, start: int, end: int, *,
               widen: int = 1, widen_left: int | None = None, limit: int = 5,
               accept=None) -> list[SlotFill]:
    """Library wordings for the words at ``start:end`` of sentence ``index``, best first.

    The gap is the term itself first, then widened by up to ``widen_left`` words on the left
    (where a name's modifiers stand) and ``widen`` on the right, fewest words first; the first
    widening with a wording wins, so the correction keeps as much of the sentence as it can.
    Whole-sentence matches come before three-words-either-side matches. Within a widening,
    wordings found in the k most similar reports come first, then the most written. A wording
    never repeats the removed words; ``accept(words)`` may reject more.
    """
    if ctx.library is None:
        return []
    stats = ctx.library.stats
    sentence = ctx.sentence(index).text
    tokens = tokenize(sentence)
    words = tuple(t.text for t in tokens)
    bounds = _slot_bounds(tokens, start, end)
    if bounds is None:
        return []
    removed = set(words[bounds[0]:bounds[1]])
    widen_left = widen if widen_left is None else widen_left
    nearby = neighbour_sentences(ctx) if ctx.neighbours else {}
    for whole in (True, False):
        for left_extra, right_extra in _widenings(widen_left, widen):
            a, b = bounds[0] - left_extra, bounds[1] + right_extra
            if a < 0 or b > len(words):
                continue
            left = ("<s>",) + words[:a]
            right = words[b:] + ("</s>",)
            if not whole:
                left, right = left[-3:], right[:3]
            kept = set(words[a:bounds[0]] + words[bounds[1]:b])
            found = []
            for filler, count in stats.fillers_between(left, right, ctx.exclude).items():
                if set(filler) & (removed - kept) or filler == words[a:b]:
                    continue
                if accept is not None and not accept(" ".join(filler)):
                    continue
                near = nearby.get(words[:a] + filler + words[b:], 0) if whole else 0
                found.append(SlotFill(tokens[a].start, tokens[b - 1].end, filler, count, whole,
                                      near, left_extra + right_extra))
            if found:
                found.sort(key=lambda f: (-f.nearby, -f.count, f.words))
                return found[:limit]
    return []
