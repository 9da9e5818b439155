"""Decisions kept across report versions.

When a new version of a study's report has been checked (a final report after the preliminary
one), the radiologist's decisions on sentences the new version did not change are made again
on the new version's sentences — new append-only decisions in the radiologist's name, in the
transaction that marks the study ready — so only what changed needs a decision. A decision is
carried only when it still means the same: the sentence reads the same in the same section, and
an accepted or rejected flag is still raised by the same detector (for an accepted one, with
the same suggestion). Everything else waits for a new decision.
"""
from __future__ import annotations

import logging
from collections import defaultdict

from django.db.models import F

from radreview.audit.services import record_event
from radreview.studies.models import Report, Sentence, Study

from . import selectors
from . import state as state_table
from .models import Decision, Detection, SentenceState

logger = logging.getLogger(__name__)


def _key(sentence: Sentence) -> tuple[str, str]:
    return sentence.section, " ".join(sentence.text.split()).lower()


def _still_means_the_same(decision: Decision, detection: Detection | None) -> bool:
    if decision.action == Decision.Action.EDIT:
        return True
    if detection is None:
        return False  # the flag it answered is gone
    if decision.action == Decision.Action.ACCEPT:
        return (selectors.suggestion_of(detection) or "").strip() == decision.after_text
    return True


def carry_forward(study_id: int) -> int:
    """Carry the previous version's decisions to the study's current report; how many."""
    report = Report.objects.filter(study_id=study_id, kind=Report.Kind.UPLOADED).first()
    if report is None or report.version == 1:
        return 0
    previous = (Report.objects.filter(study_id=study_id, kind=Report.Kind.SUPERSEDED)
                .order_by("-version").first())
    if previous is None or Decision.objects.filter(sentence__report=report).exists():
        return 0  # nothing to carry, or carried (or decided) already
    targets: dict[tuple[str, str], list[Sentence]] = defaultdict(list)
    for sentence in report.sentences.order_by("index"):
        targets[_key(sentence)].append(sentence)
    flags = {(row.sentence_index, row.detector): row
             for row in Detection.objects.filter(report=report, flagged=True)}
    version = Study.objects.values_list("review_version", flat=True).get(pk=study_id)
    carried = 0
    states = (SentenceState.objects.filter(sentence__report=previous, decision__isnull=False)
              .select_related("sentence", "decision__detection", "decision__user")
              .order_by("sentence__index"))
    for old in states:
        decision, matches = old.decision, targets.get(_key(old.sentence))
        if not matches:
            continue  # the sentence changed: it needs a decision of its own
        target = matches[0]
        detection = None
        if decision.detection is not None:
            detection = flags.get((target.index, decision.detection.detector))
        if not _still_means_the_same(decision, detection):
            continue
        matches.pop(0)
        made = Decision.objects.create(
            study_id=study_id, sentence=target, detection=detection, action=decision.action,
            before_text=target.text, after_text=decision.after_text, user=decision.user,
            study_version=version)
        state_table.record(made, effective=made)
        carried += 1
    if carried:
        Study.objects.filter(pk=study_id).update(review_version=F("review_version") + 1)
        record_event("decisions_carried_forward", study=Study(pk=study_id), detail={
            "from_version": previous.version, "to_version": report.version,
            "decisions": carried})
        logger.info("study %s: %s decisions carried to report version %s", study_id, carried,
                    report.version)
    return carried


def on_pipeline_finished(sender, study_id: int, **kwargs) -> None:
    carry_forward(study_id)
