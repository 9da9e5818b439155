"""The review's current state, kept incrementally beside the append-only history.

Every decision is written with the update of its sentence's ``SentenceState`` row in one
transaction (services.py), so reading the current state is a lookup per sentence, and the few
history questions a decision asks ("what did this sentence say before?", "which decision does
undo take back?") are indexed queries that stop at the first live row. ``replay`` derives the
same state from the history alone: the definition the table must always agree with.
"""
from __future__ import annotations

from collections import Counter

from django.db.models import F, QuerySet

from radreview.studies.models import Report

from . import derivation
from .models import Decision, SentenceState


def live(decisions: QuerySet) -> QuerySet:
    """Decisions that are neither undos nor undone."""
    return decisions.exclude(action=Decision.Action.UNDO).filter(undone_by__isnull=True)


def latest_undoable(study) -> Decision | None:
    """The decision an undo takes back: the study's latest live one on its current report (one
    on an earlier version of the report stays in the history)."""
    return (live(Decision.objects.filter(study=study))
            .exclude(sentence__report__kind=Report.Kind.SUPERSEDED)
            .select_related("sentence", "user").order_by("-id").first())


def effective_for(sentence_id: int, excluding: int | None = None) -> Decision | None:
    """The sentence's effective decision (optionally as if ``excluding`` were undone)."""
    decisions = live(Decision.objects.filter(sentence_id=sentence_id))
    if excluding is not None:
        decisions = decisions.exclude(pk=excluding)
    return decisions.order_by("-id").first()


def record(decision: Decision, effective: Decision | None, has_row: bool | None = None) -> None:
    """Update the sentence's state for a decision just appended (same transaction).
    ``has_row``: whether the sentence has its state row, when the caller read it already (the
    first decision on a sentence then inserts at once); None: try the update first."""
    if decision.sentence_id is None:
        return
    # No race between the update and the create: decisions on a study are serialised by the
    # review-version claim that opens their transaction (services._claim_version).
    updated = has_row is not False and SentenceState.objects.filter(
        sentence_id=decision.sentence_id).update(
        decision=effective, decision_count=F("decision_count") + 1)
    if not updated:
        SentenceState.objects.create(study_id=decision.study_id, sentence_id=decision.sentence_id,
                                     decision=effective, decision_count=1)


def states_of(study) -> dict[int, SentenceState]:
    """The study's state rows by sentence id, with their effective decisions."""
    rows = SentenceState.objects.filter(study=study).select_related("decision__user")
    return {row.sentence_id: row for row in rows}


def replay(decisions) -> dict[int, tuple[int | None, int]]:
    """From the history alone: sentence id -> (effective decision id or None, decisions)."""
    decisions = list(decisions)
    effective = derivation.effective_decisions(decisions)
    counts = Counter(d.sentence_id for d in decisions if d.sentence_id is not None)
    return {sentence_id: (effective[sentence_id].id if sentence_id in effective else None, count)
            for sentence_id, count in counts.items()}


def stored(study) -> dict[int, tuple[int | None, int]]:
    """What the state table holds, in ``replay``'s shape."""
    return {row.sentence_id: (row.decision_id, row.decision_count)
            for row in SentenceState.objects.filter(study=study)}


def rebuild(study) -> None:
    """Rewrite the study's state rows from its history (the history is the truth)."""
    SentenceState.objects.filter(study=study).delete()
    SentenceState.objects.bulk_create(
        SentenceState(study_id=study.pk, sentence_id=sentence_id, decision_id=decision_id,
                      decision_count=count)
        for sentence_id, (decision_id, count)
        in replay(Decision.objects.filter(study=study)).items()
    )
