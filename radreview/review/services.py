"""Review writes: decisions, undo, sign-off, exports and storing detections.

Every decision and sign-off is made against the study's ``review_version`` the reviewer saw.
The version is bumped with one conditional UPDATE (``WHERE review_version = seen``) at the start
of the transaction: of two reviewers who saw the same version, exactly one wins, and the other
gets ``StaleVersion`` instead of silently overwriting what they did not see. The UPDATE takes
the row lock (PostgreSQL) or the write lock (SQLite), so everything after it in the
transaction — validation, the decision row, the audit event — runs serialised per study.
"""
from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NoReturn

from django.db import transaction
from django.db.models import Exists, F, Q

from radreview.accounts.permissions import require_radiologist
from radreview.audit.services import record_event, record_study_view
from radreview.compare import services as drafting
from radreview.dicomnet import delivery
from radreview.errors import ServiceError
from radreview.studies.models import Report, Sentence, Study
from radreview.studies.report_text import clean_report_text, is_readable
from radreview.studies.selectors import study_with_everything
from workers import types

from . import exports, selectors
from . import state as state_table
from .models import Decision, Detection, SentenceState, SignOff

logger = logging.getLogger(__name__)

MAX_SENTENCE_CHARS = 2000


class ReviewError(ServiceError):
    """A review action that cannot be done; ``message`` says why in a reviewer's words."""


class StaleVersion(ReviewError):
    """The reviewer acted on an out-of-date view of the study."""

    def __init__(self, seen: int, current: int, latest: str = ""):
        who = f" ({latest})" if latest else ""
        super().__init__(
            "Someone else changed this review while you were looking at it" + who + ". "
            "Your action was not saved; the report below is up to date, so check it and "
            "decide again."
        )
        self.seen, self.current, self.latest = seen, current, latest


class IntegrityFailure(ReviewError):
    """A signed text no longer matches the hash recorded when it was signed."""


@dataclass(frozen=True)
class Outcome:
    """What an action produced, and the study's review version after it."""

    version: int
    decision: Decision | None = None
    signoff: SignOff | None = None


#: The largest review version a study can hold: its column is a PositiveIntegerField, an
#: integer on PostgreSQL. A larger version is malformed, not stale: matching it would find no
#: study and answer 409 ("someone else changed this review").
MAX_VERSION = 2**31 - 1


def _parse_version(version) -> int:
    try:
        value = int(version)
    except (TypeError, ValueError):
        raise ReviewError("The review version is missing; reload the page.") from None
    if not 0 <= value <= MAX_VERSION:
        raise ReviewError("The review version is invalid; reload the page.")
    return value


def _claim_version(study: Study, seen: int) -> int:
    """Bump the study's review version if it is still ``seen``; else raise ``StaleVersion``."""
    won = Study.objects.filter(pk=study.pk, review_version=seen).update(
        review_version=F("review_version") + 1
    )
    if not won:
        _refuse_claim(study, seen)
    return seen + 1


def _refuse_claim(study: Study, seen: int) -> NoReturn:
    """A claim matched nothing: ``StaleVersion`` if the version moved on, else the study was not
    reviewable (only ``_claim_for_decision`` asks that)."""
    current = Study.objects.values_list("review_version", flat=True).get(pk=study.pk)
    if current != seen:
        raise StaleVersion(seen, current, latest_change(study, current))
    raise ReviewError(NOT_READY)


NOT_READY = "The study is not ready for review yet (its pipeline has not finished)."


def _claim_for_decision(study: Study, seen: int) -> int:
    """``_claim_version`` for a decision or an undo, in the same UPDATE: only on a reviewable
    study, and a signed one goes back to ready (its signed version stays; the study waits for a
    new sign-off). One statement instead of the claim, a read of the status and its update."""
    won = Study.objects.filter(
        pk=study.pk, review_version=seen, status__in=selectors.REVIEWABLE_STATUSES
    ).update(review_version=F("review_version") + 1, status=Study.Status.READY)
    if not won:
        _refuse_claim(study, seen)
    return seen + 1


def latest_change(study: Study, current: int) -> str:
    """Who made the change that moved the study to ``current``, in words."""
    decision = (
        Decision.objects.filter(study=study, study_version=current - 1)
        .select_related("user")
        .first()
    )
    if decision is not None:
        return f"{decision.get_action_display().lower()} by {decision.user.get_username()}"
    signoff = (
        SignOff.objects.filter(study=study, study_version=current - 1)
        .select_related("signer")
        .first()
    )
    if signoff is not None:
        return f"signed version {signoff.version} by {signoff.signer.get_username()}"
    return ""


def _load_for_review(study: Study) -> tuple[Study, Report]:
    study = Study.objects.get(pk=study.pk)  # the status as of now, inside the transaction
    if study.status not in selectors.REVIEWABLE_STATUSES:
        raise ReviewError(NOT_READY)
    report = study.audited_report
    if report is None:
        raise ReviewError("The study has no report to review.")
    return study, report


def _sentence_for_review(study: Study, sentence_index) -> Sentence:
    """The sentence of the study's audited report, with its report and its state row's effective
    decision, in one query."""
    try:
        index = int(sentence_index)
    except (TypeError, ValueError):
        raise ReviewError("No such sentence in this report.") from None
    # Plain filters (a subquery costs more to build than the row): the audited report is the
    # uploaded one if any, else the candidate.
    rows = {row.report.kind: row for row in Sentence.objects.filter(
        report__study=study.pk, report__kind__in=selectors.AUDITED_KINDS, index=index,
    ).select_related("report", "review_state__decision")}
    sentence = rows.get(Report.Kind.UPLOADED)
    if sentence is None and Report.Kind.CANDIDATE in rows and not Report.objects.filter(
            study=study.pk, kind=Report.Kind.UPLOADED).exists():
        sentence = rows[Report.Kind.CANDIDATE]
    if sentence is None:
        if not Report.objects.filter(study=study.pk, kind__in=selectors.AUDITED_KINDS).exists():
            raise ReviewError("The study has no report to review.")
        raise ReviewError("No such sentence in this report.")
    return sentence


def _flag_rows(sentence: Sentence) -> list[Detection]:
    """The sentence's flags, in ``selectors.flags_of``'s order: from the report's kept review
    (``report_cache``) when this process has it, else asked in SQL of this sentence's rows only
    (their sources read only when a suggestion or a chosen detection needs them)."""
    kept = selectors.cached_flag_rows(sentence.report)  # immutable once the study is reviewable
    if kept is not None:
        return list(kept.get(sentence.index, []))
    has_combined = Detection.objects.filter(report=sentence.report_id, detector=Detection.COMBINED)
    return list(
        Detection.objects.filter(report=sentence.report_id, sentence_index=sentence.index,
                                 flagged=True)
        .filter(Q(detector=Detection.COMBINED) | ~Exists(has_combined))
    )


def _state_row(sentence: Sentence) -> SentenceState | None:
    """The sentence's state row, read with it (None before its first decision)."""
    try:
        return sentence.review_state
    except SentenceState.DoesNotExist:
        return None


def _current_text(sentence: Sentence) -> str:
    """What the sentence reads now: its effective decision's text (no history read)."""
    row = _state_row(sentence)
    effective = row.decision if row else None
    return effective.after_text if effective else sentence.text


def decide(study: Study, user, *, action: str, sentence_index, version, detection_id=None,
           text: str | None = None) -> Outcome:
    """Accept or reject a flag, or edit a sentence, on the study's audited report."""
    require_radiologist(user)
    seen = _parse_version(version)
    if action not in (Decision.Action.ACCEPT, Decision.Action.REJECT, Decision.Action.EDIT):
        raise ReviewError(f"Unknown action {action!r}.")
    with transaction.atomic():
        new_version = _claim_for_decision(study, seen)
        study = Study(pk=study.pk)
        sentence = _sentence_for_review(study, sentence_index)
        before = _current_text(sentence)
        flags = _flag_rows(sentence)
        detection = flags[0] if flags else None
        if action in (Decision.Action.ACCEPT, Decision.Action.REJECT):
            if not flags:
                raise ReviewError("This sentence is not flagged; edit it instead.")
            if detection_id not in (None, ""):
                detection = _chosen_detection(flags, detection_id)
        if action == Decision.Action.ACCEPT:
            proposal = selectors.suggestion_of(detection)
            if proposal is None and selectors.keeps_its_sentence(detection):
                # Accepting would remove a sentence the panel says to keep (a finding against a
                # doubted normal statement, or two readings): never by one key.
                raise ReviewError("This flag proposes keeping the sentence: keep it, edit it, "
                                  "or choose one of its readings.")
            after = (proposal or "").strip()
        elif action == Decision.Action.REJECT:
            after = sentence.text
        else:
            after = " ".join(clean_report_text(text if isinstance(text, str) else "").split())
            if not is_readable(after):
                raise ReviewError(
                    "Type the corrected sentence (to remove a flagged sentence, accept its flag)."
                )
            if len(after) > MAX_SENTENCE_CHARS:
                raise ReviewError(f"A sentence may have at most {MAX_SENTENCE_CHARS} characters.")
            if after == before:
                raise ReviewError("The sentence is unchanged.")
        decision = Decision.objects.create(
            study=study, sentence=sentence, detection=detection, action=action,
            before_text=before, after_text=after, user=user, study_version=seen,
        )
        state_table.record(decision, effective=decision, has_row=_state_row(sentence) is not None)
        record_event("review_decision", actor=user, study=study, detail={
            "decision": decision.pk, "action": action, "sentence_number": sentence.index + 1,
            "detection": detection.pk if detection else None, "version": seen,
        })
    logger.info("study %s: decision %s (%s) at version %s", study.pk, decision.pk, action, seen)
    return Outcome(version=new_version, decision=decision)


def _chosen_detection(flags: list[Detection], detection_id) -> Detection:
    """A flag of the sentence, or one of the detections a combined flag merged."""
    try:
        wanted = int(detection_id)
    except (TypeError, ValueError):
        raise ReviewError("No such detection on this sentence.") from None
    for flag in flags:
        if flag.pk == wanted:
            return flag
        for source in flag.sources.all():
            if source.pk == wanted:
                return source
    raise ReviewError("No such detection on this sentence.")


def undo_last(study: Study, user, *, version) -> Outcome:
    """Take back the study's latest live decision by appending an UNDO that points at it."""
    require_radiologist(user)
    seen = _parse_version(version)
    with transaction.atomic():
        new_version = _claim_for_decision(study, seen)
        study = Study(pk=study.pk)
        # Indexed reads that stop at the first live row: the cost does not grow with history.
        target = state_table.latest_undoable(study)
        if target is None:
            raise ReviewError("There is no decision to undo.")
        previous = (state_table.effective_for(target.sentence_id, excluding=target.pk)
                    if target.sentence_id else None)
        after = (
            previous.after_text if previous else (target.sentence.text if target.sentence else "")
        )
        decision = Decision.objects.create(
            study=study,
            sentence=target.sentence,
            detection_id=target.detection_id,  # its id alone: no read of the detection
            action=Decision.Action.UNDO,
            before_text=target.after_text,
            after_text=after,
            undoes=target,
            user=user,
            study_version=seen,
        )
        state_table.record(decision, effective=previous)
        record_event("review_undo", actor=user, study=study, detail={
            "decision": decision.pk, "undoes": target.pk, "undone_action": target.action,
            "sentence_number": target.sentence.index + 1 if target.sentence else None,
            "version": seen,
        })
    logger.info("study %s: decision %s undone by %s", study.pk, target.pk, decision.pk)
    return Outcome(version=new_version, decision=decision)


ATTESTATION = ("I have reviewed the images and the final report, and I attest that this "
               "report is my interpretation of the study.")


def _check_attestation(user, password: str, attested: bool) -> None:
    if not attested:
        raise ReviewError("Confirm the attestation before signing.")
    if not password or not user.check_password(password):
        record_event("signoff_password_refused", actor=user)
        raise ReviewError("The password is not right: the report was not signed. "
                          "Enter your own password to sign.")


def signer_identity(user) -> tuple[str, str]:
    """(full name, role) as the signed exports state them."""
    return (user.get_full_name() or user.get_username(), user.get_role_display())


def sign(study: Study, user, *, version, password: str = "", attested: bool = False) -> Outcome:
    """Sign the final text derived from the decisions, as the study's next version.

    Signing is an attestation: the radiologist confirms it and re-enters their password."""

    require_radiologist(user)
    seen = _parse_version(version)
    _check_attestation(user, password, attested)
    name, role = signer_identity(user)
    with transaction.atomic():
        new_version = _claim_version(study, seen)
        study, report = _load_for_review(study)
        if not report.sentences.exists():
            raise ReviewError("The report has no sentences: there is nothing to sign. Upload the "
                              "report again with its text.")
        state = selectors.review_state(study_with_everything(study.pk))
        if state.open_flags:
            count = len(state.open_flags)
            raise ReviewError(f"{count} flag{'s are' if count != 1 else ' is'} still open: "
                              "accept, reject or edit every flagged sentence before signing.")
        if not state.final_text.strip():
            raise ReviewError("The final report would be empty.")
        if not state.unsigned_changes:
            raise ReviewError(
                f"Version {state.latest_signoff.version} already has exactly this text."
            )
        number = (state.latest_signoff.version if state.latest_signoff else 0) + 1
        report = Report.objects.create(
            study=study, kind=Report.Kind.FINAL, text=state.final_text,
            source=f"signed version {number}", created_by=user,
        )
        signoff = SignOff.objects.create(
            study=study,
            version=number,
            report=report,
            signer=user,
            decision_ids=state.effective_ids,
            sha256=hashlib.sha256(state.final_text.encode("utf-8")).hexdigest(),
            sections=[s.as_dict() for s in state.final_sections],
            study_version=seen,
            attestation=ATTESTATION,
            signer_name=name,
            signer_role=role,
        )
        Study.objects.filter(pk=study.pk).update(status=Study.Status.SIGNED)
        delivery.queue_for(signoff)
        drafting.record_signoff(signoff)  # a model's draft: compared with this text
        record_event("report_signed", actor=user, study=study, detail={
            "version": number, "signoff": signoff.pk, "sha256": signoff.sha256,
            "decisions": len(state.effective_ids),
        })
    logger.info("study %s: signed version %s", study.pk, number)
    return Outcome(version=new_version, signoff=signoff)


def export(signoff: SignOff, fmt: str, user) -> tuple[bytes, str, str]:
    """The signed version in ``fmt`` ("txt", "fhir" or "sr"): (content, file name, media type).

    Exporting reads; admins may do it too. The text's hash is checked against the sign-off,
    so a final report altered behind the application's back is never exported as signed.
    """

    builder = exports.BUILDERS.get(fmt)
    if builder is None:
        raise ReviewError(f"Unknown export format {fmt!r}.")
    if hashlib.sha256(signoff.report.text.encode("utf-8")).hexdigest() != signoff.sha256:
        logger.error(
            "study %s: signed version %s fails its hash check", signoff.study_id, signoff.version
        )
        raise IntegrityFailure(
            "The signed text does not match its signature hash; it cannot be exported."
        )
    content = builder.build(signoff)
    record_event("report_exported", actor=user, study=signoff.study, detail={
        "version": signoff.version, "format": fmt, "bytes": len(content),
    })
    record_study_view(user, signoff.study, via="export", signed_version=signoff.version)
    return content, builder.filename(signoff), builder.media_type


# --- detections ------------------------------------------------------------------------------


def store_detections(report: Report, detections: Iterable[types.Detection], *,
                     flagged: bool = True) -> list[Detection]:
    """Store one detector's detections on a report (for the detection stages, inside their
    store transaction) and note them in the audit trail."""
    detections = list(detections)
    if not detections:  # nothing to store: no query (a stage stores several detectors' lists)
        return []
    sentences = {s.index: s for s in report.sentences.all()}
    rows = Detection.objects.bulk_create(
        Detection(
            report=report,
            sentence=sentences.get(d.sentence_index),
            sentence_index=d.sentence_index,
            start=d.start,
            end=d.end,
            detector=d.detector,
            explanation=d.explanation,
            harm=d.harm.value,
            confidence=d.confidence,
            evidence=d.evidence,
            suggestion=d.suggestion,
            flagged=flagged,
            prompt_version=d.prompt_version or "",
            model_name=d.model or "",
        )
        for d in detections
    )
    by_detector: dict[str, int] = {}
    for row in rows:
        by_detector[row.detector] = by_detector.get(row.detector, 0) + 1
    for detector, count in sorted(by_detector.items()):
        record_event("flags_raised", study=report.study, detail={
            "detector": detector, "detections": count, "flagged": count if flagged else 0,
        })
    return rows
