"""Whether a suggested fix would delete or negate the positive finding of a contradiction.

The positive side of a pair is a finding the report describes; a fix that removes it or
turns it into its denial makes the report agree with a normal statement by deleting the
finding. Other detectors (the three-stage correction) ask here before they suggest.
"""
from __future__ import annotations

from workers.nlp import extract_findings
from workers.nlp.findings import ABSENT
from workers.study.context import StudyContext

from .find import find_contradictions
from .pairs import BETWEEN_FINDINGS, Contradiction


def undoes_paired_finding(ctx: StudyContext, index: int, suggestion: str | None
                          ) -> Contradiction | None:
    """The contradiction whose positive finding in sentence ``index`` the ``suggestion``
    would remove ("" deletes the sentence) or negate; None when it keeps it (or there is
    no such pair)."""
    if suggestion is None:
        return None
    for c in find_contradictions(ctx):
        if index not in c.sentences:
            continue
        claim = c.claim_of(index)
        if claim.normal:
            continue
        if not suggestion.strip():
            return c
        kept = [f for f in extract_findings(suggestion)
                if f.observation == claim.finding.observation and f.status != ABSENT]
        if not kept:
            return c
    return None


def unsettled_pair(ctx: StudyContext, index: int) -> Contradiction | None:
    """The contradiction between two statements of what is there (a side, a size, a count, a
    change, a tube's place) that sentence ``index`` is in: the text cannot say which of the two
    is right, so neither is corrected automatically (issue 31). None when there is none."""
    return next((c for c in find_contradictions(ctx)
                 if index in c.sentences and c.kind in BETWEEN_FINDINGS), None)
