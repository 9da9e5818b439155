"""Which candidate sentence says what which reference sentence says, and what words changed.

``align`` pairs image sentences one to one: identical sentences (case and spacing aside)
first, then the most similar remaining ones by the overlap of their words (Jaccard ≥
``MIN_SIMILARITY``), most similar first. An error names the sentences it rests on from these
pairs, and ``replaced_words`` finds where an aligned sentence has other words in the place
of a finding's ("Borderline cardiomegaly." -> "Borderline aspergillosis."): one wrong finding
in place of a right one is one error, not a missing and a false one.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

_WORD_RE = re.compile(r"[a-z0-9]+(?:['-][a-z0-9]+)*")

#: Below this word overlap two sentences are not the same sentence written differently.
MIN_SIMILARITY = 0.5
#: ... unless both stand between the same two sentences the reports share.
MIN_SIMILARITY_IN_GAP = 0.2
#: A replacement is in place when it replaces at most this many words beyond the finding's
#: and the rest of the two sentences differs by at most as many words.
MAX_EXTRA_WORDS = 2


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[tuple[str, int, int], ...]:
    return tuple((m.group(), m.start(), m.end()) for m in _WORD_RE.finditer(text.lower()))


def _jaccard(a: str, b: str) -> float:
    wa = {w for w, _, _ in _words(a)}
    wb = {w for w, _, _ in _words(b)}
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _gaps(order: list[int], anchored: set[int], anchor_of: dict[int, int]) -> dict[int, int]:
    """Each unanchored sentence's gap: the anchor (its partner's index) of the nearest
    anchored sentence before it, or -1."""
    gaps, last = {}, -1
    for index in order:
        if index in anchored:
            last = anchor_of[index]
        else:
            gaps[index] = last
    return gaps


def align(candidate: dict[int, str], reference: dict[int, str]) -> dict[int, int]:
    """Candidate sentence index -> reference sentence index, one to one."""
    pairs: dict[int, int] = {}
    by_text: dict[str, list[int]] = {}
    for index, text in reference.items():
        by_text.setdefault(_normal(text), []).append(index)
    left = []
    for index, text in candidate.items():
        same = by_text.get(_normal(text))
        if same:
            pairs[index] = same.pop(0)
        else:
            left.append(index)
    taken = set(pairs.values())
    free = [i for i in reference if i not in taken]
    if not left or not free:
        return pairs
    # Sentences between the same two identical ones are more likely one sentence rewritten.
    c_gap = _gaps(sorted(candidate), set(pairs), pairs)
    r_gap = _gaps(sorted(reference), taken, {r: r for r in taken})
    scored = sorted(((_jaccard(candidate[c], reference[r]), c, r) for c in left for r in free),
                    key=lambda t: (-t[0], t[1], t[2]))
    used_c: set[int] = set()
    used_r: set[int] = set()
    for score, c, r in scored:
        if score < (MIN_SIMILARITY_IN_GAP if c_gap[c] == r_gap[r] else MIN_SIMILARITY):
            continue
        if c in used_c or r in used_r:
            continue
        pairs[c] = r
        used_c.add(c)
        used_r.add(r)
    return pairs


def replaced_words(reference: str, candidate: str, start: int, end: int
                   ) -> tuple[int, int] | None:
    """Where ``candidate`` has other words in place of ``reference[start:end]`` (the words of
    one finding): the span in ``candidate`` of the words that replace them, or None when
    those words are kept, deleted or only added to, or when the two sentences differ too much
    for one to be the other with a few words replaced."""
    ref_words, cand_words = _words(reference), _words(candidate)
    matcher = SequenceMatcher(None, [w for w, _, _ in ref_words], [w for w, _, _ in cand_words],
                              autojunk=False)
    finding_words = sum(1 for _, a, b in ref_words if a < end and start < b)
    found, elsewhere, kept = None, 0, 0
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            kept += i2 - i1
            continue
        r_start = ref_words[i1][1] if i1 < i2 else None
        r_end = ref_words[i2 - 1][2] if i1 < i2 else None
        if (found is None and op == "replace" and r_start < end and start < r_end
                and i2 - i1 <= finding_words + MAX_EXTRA_WORDS):
            found = (cand_words[j1][1], cand_words[j2 - 1][2])
        else:
            elsewhere += max(i2 - i1, j2 - j1)
    if found is None or not kept or elsewhere > MAX_EXTRA_WORDS:
        return None
    return found
