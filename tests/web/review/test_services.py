"""Decisions, undo, sign-off and their guarantees, through the services."""
import threading

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import ProtectedError

from radreview.audit.models import AuditEvent
from radreview.review import selectors, services
from radreview.review.models import Decision, SignOff
from radreview.studies.models import Report, Study
from radreview.studies.selectors import study_with_everything
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def state_of(study):
    return selectors.review_state(study_with_everything(study.pk))


def version_of(study):
    return Study.objects.get(pk=study.pk).review_version


def decide(study, user, action, index, **kw):
    return services.decide(
        study, user, action=action, sentence_index=index, version=version_of(study), **kw
    )


def text_of(study, index):
    return next(s.current for s in state_of(study).sentences if s.index == index)


def decide_all_open(study, user):
    for flag in state_of(study).open_flags:
        decide(study, user, "reject", flag.sentence_index)


# --- which detections are flags --------------------------------------------------------------


def test_flags_are_the_flagged_combined_rows():
    state = state_of(rf.make_review_study())
    assert [f.sentence_index for f in state.flags] == list(rf.FLAGGED)
    assert all(f.primary.detector == "combined" for f in state.flags)
    assert rf.TUBE not in [
        f.sentence_index for f in state.flags
    ]  # combined but below the threshold
    nodule = next(f for f in state.flags if f.sentence_index == rf.NODULE)
    assert [s.detector for s in nodule.sources] == ["vrag", "judge"]
    assert nodule.harm == "high" and nodule.confidence == pytest.approx(0.91)


def test_without_combined_rows_the_raw_flags_are_shown():
    state = state_of(rf.make_review_study(with_combined=False))
    assert sorted({f.sentence_index for f in state.flags}) == sorted(
        {rf.EFFUSION, rf.NODULE, rf.UNCHANGED})
    assert all(f.primary.detector != "combined" for f in state.flags)


def test_a_combined_flag_offers_its_sources_suggestion():
    state = state_of(rf.make_review_study())
    effusion = next(f for f in state.flags if f.sentence_index == rf.EFFUSION)
    assert effusion.primary.suggestion is None
    assert effusion.suggestion == rf.EFFUSION_SUGGESTION


def test_report_warning_comes_from_radflag_evidence():
    assert state_of(rf.make_review_study()).report_warning == {"flagged_sentences": 2, "lambda2": 2}
    assert state_of(rf.make_large_review_study(sentences=6, flags=2)).report_warning is None


# --- decisions -------------------------------------------------------------------------------


def test_accept_replaces_with_the_suggestion_or_removes(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "accept", rf.EFFUSION)
    decide(study, radiologist, "accept", rf.NODULE)  # suggestion "" -> removed
    assert text_of(study, rf.EFFUSION) == rf.EFFUSION_SUGGESTION
    assert text_of(study, rf.NODULE) == ""
    final = state_of(study).final_text
    assert rf.EFFUSION_SUGGESTION in final and "nodule" not in final


def test_accept_with_a_chosen_source_uses_that_suggestion(radiologist):
    study = rf.make_review_study()
    flag = next(f for f in state_of(study).flags if f.sentence_index == rf.NODULE)
    vrag = next(s for s in flag.sources if s.detector == "vrag").detection
    decide(study, radiologist, "accept", rf.NODULE, detection_id=vrag.pk)  # vrag proposes nothing
    decision = Decision.objects.get()
    assert decision.detection == vrag and decision.after_text == ""
    other = rf.make_review_study()
    with pytest.raises(services.ReviewError, match="No such detection"):
        decide(other, radiologist, "accept", rf.NODULE, detection_id=vrag.pk)  # another study's


def test_reject_keeps_the_sentence_and_closes_the_flag(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "reject", rf.UNCHANGED)
    state = state_of(study)
    assert text_of(study, rf.UNCHANGED) == "Unchanged from prior."
    assert rf.UNCHANGED not in [f.sentence_index for f in state.open_flags]
    assert state.final_text == rf.REPORT


def test_edit_records_before_and_after(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "accept", rf.EFFUSION)
    decide(study, radiologist, "edit", rf.EFFUSION, text="  No   effusion on the left. ")
    decision = Decision.objects.order_by("-id").first()
    assert (decision.before_text, decision.after_text) == (
        rf.EFFUSION_SUGGESTION,
        "No effusion on the left.",
    )
    assert decision.user == radiologist and decision.study_version == 1
    # Any sentence may be edited, flagged or not.
    decide(study, radiologist, "edit", 1, text="The heart is normal in size.")
    assert text_of(study, 1) == "The heart is normal in size."


@pytest.mark.parametrize("action, index, extra, message", [
    ("accept", 1, {}, "not flagged"),
    ("reject", 99, {}, "No such sentence"),
    ("edit", 1, {"text": "   "}, "Type the corrected sentence"),
    ("edit", 1, {"text": "The heart size is normal."}, "unchanged"),
    ("shout", 1, {}, "Unknown action"),
])
def test_refused_decisions_store_nothing_and_keep_the_version(
    radiologist, action, index, extra, message
):
    study = rf.make_review_study()
    with pytest.raises(services.ReviewError, match=message):
        decide(study, radiologist, action, index, **extra)
    assert Decision.objects.count() == 0 and version_of(study) == 0


def test_no_decisions_before_the_pipeline_has_finished(radiologist):
    study = rf.make_review_study()
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    with pytest.raises(services.ReviewError, match="not ready"):
        decide(study, radiologist, "reject", rf.EFFUSION)


def test_admins_read_but_never_decide_undo_or_sign(site_admin):
    study = rf.make_review_study()
    with pytest.raises(PermissionDenied):
        decide(study, site_admin, "reject", rf.EFFUSION)
    with pytest.raises(PermissionDenied):
        services.undo_last(study, site_admin, version=0)
    with pytest.raises(PermissionDenied):
        services.sign(study, site_admin, version=0, password=PASSWORD, attested=True)
    assert Decision.objects.count() == 0


def test_decisions_are_append_only(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "reject", rf.EFFUSION)
    decision = Decision.objects.get()
    decision.after_text = "tampered"
    with pytest.raises(ValueError):
        decision.save()
    with pytest.raises(ValueError):
        decision.delete()


# --- concurrency ------------------------------------------------------------------------------


def test_a_decision_on_a_stale_version_is_refused_with_who_changed_it(radiologist):
    study = rf.make_review_study()
    other = factories.make_user(username="dr-other")
    services.decide(study, other, action="reject", sentence_index=rf.EFFUSION, version=0)
    with pytest.raises(services.StaleVersion) as caught:
        services.decide(study, radiologist, action="accept", sentence_index=rf.NODULE, version=0)
    assert caught.value.current == 1
    assert "reject flag by dr-other" in caught.value.message.lower()
    assert Decision.objects.count() == 1
    assert text_of(study, rf.NODULE) == "A right upper lobe nodule measures 2 cm."


@pytest.mark.django_db(transaction=True)
def test_two_reviewers_deciding_at_once_never_both_win():
    study = rf.make_review_study()
    users = [factories.make_user(username=f"dr-{n}") for n in range(4)]
    barrier = threading.Barrier(len(users))
    results = {}

    def act(user, index):
        try:
            barrier.wait()
            results[user.username] = services.decide(
                Study(pk=study.pk), user, action="reject", sentence_index=index, version=0).version
        except services.StaleVersion:
            results[user.username] = "stale"
        finally:
            connection.close()

    threads = [threading.Thread(target=act, args=(u, i)) for u, i in zip(users, rf.FLAGGED)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results.values(), key=str) == [1, "stale", "stale", "stale"]
    assert Decision.objects.count() == 1 and version_of(study) == 1


# --- undo ------------------------------------------------------------------------------------


def test_undo_appends_an_undo_and_restores_the_text(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "accept", rf.EFFUSION)
    accepted = Decision.objects.get()
    outcome = services.undo_last(study, radiologist, version=version_of(study))
    undo = outcome.decision
    assert undo.action == "undo" and undo.undoes == accepted
    assert (undo.before_text, undo.after_text) == (
        rf.EFFUSION_SUGGESTION,
        "There is a small left pleural effusion.",
    )
    assert Decision.objects.count() == 2  # nothing deleted
    assert text_of(study, rf.EFFUSION) == "There is a small left pleural effusion."
    assert rf.EFFUSION in [f.sentence_index for f in state_of(study).open_flags]


def test_undo_steps_back_through_the_decisions_then_stops(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "reject", rf.EFFUSION)
    decide(study, radiologist, "edit", rf.EFFUSION, text="Maybe a small effusion.")
    decide(study, radiologist, "accept", rf.NODULE)
    services.undo_last(study, radiologist, version=version_of(study))  # the nodule accept
    assert text_of(study, rf.NODULE).startswith("A right upper lobe nodule")
    services.undo_last(
        study, radiologist, version=version_of(study)
    )  # the edit: back to the reject
    assert text_of(study, rf.EFFUSION) == "There is a small left pleural effusion."
    assert next(s for s in state_of(study).sentences if s.index == rf.EFFUSION).state == "rejected"
    services.undo_last(study, radiologist, version=version_of(study))  # the reject
    with pytest.raises(services.ReviewError, match="no decision to undo"):
        services.undo_last(study, radiologist, version=version_of(study))
    assert state_of(study).final_text == rf.REPORT
    assert Decision.objects.filter(action="undo").count() == 3


def test_undo_on_a_stale_version_is_refused(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "reject", rf.EFFUSION)
    with pytest.raises(services.StaleVersion):
        services.undo_last(study, radiologist, version=0)


# --- sign-off --------------------------------------------------------------------------------


def test_signing_needs_every_flag_decided(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "reject", rf.EFFUSION)
    with pytest.raises(services.ReviewError, match="3 flags are still open"):
        services.sign(study, radiologist, version=version_of(study),
                      password=PASSWORD, attested=True)
    assert not SignOff.objects.exists()


def test_sign_creates_an_immutable_hashed_final_report(radiologist):
    import hashlib

    study = rf.make_review_study()
    decide(study, radiologist, "accept", rf.EFFUSION)
    decide(study, radiologist, "accept", rf.NODULE)
    decide(study, radiologist, "reject", rf.UNCHANGED)
    decide(study, radiologist, "edit", rf.IMPRESSION_EFFUSION, text="No pleural effusion.")
    signoff = services.sign(study, radiologist, version=version_of(study),
                            password=PASSWORD, attested=True).signoff
    assert signoff.version == 1 and signoff.signer == radiologist
    assert signoff.report.kind == Report.Kind.FINAL
    assert signoff.report.text == (
        "INDICATION: Cough and fever.\n"
        "FINDINGS: The heart size is normal. There is no left pleural effusion. "
        "The endotracheal tube tip is 3 cm above the carina. The lungs are otherwise clear. "
        "Unchanged from prior.\n"
        "IMPRESSION: No pleural effusion. No pneumothorax."
    )
    assert signoff.sha256 == hashlib.sha256(signoff.report.text.encode()).hexdigest()
    assert signoff.decision_ids == sorted(Decision.objects.values_list("id", flat=True))
    assert [s["name"] for s in signoff.sections] == ["indication", "findings", "impression"]
    assert Study.objects.get(pk=study.pk).status == Study.Status.SIGNED
    with pytest.raises(ValueError):
        signoff.save()
    with pytest.raises(ValueError):
        signoff.delete()
    signoff.report.text = "rewritten"
    with pytest.raises(ValueError):
        signoff.report.save()
    with pytest.raises((ValueError, ProtectedError)):
        Report.objects.get(pk=signoff.report.pk).delete()


def test_signing_again_needs_a_change_and_makes_the_next_version(radiologist):
    study = rf.make_review_study()
    decide_all_open(study, radiologist)
    first = services.sign(study, radiologist, version=version_of(study),
                          password=PASSWORD, attested=True).signoff
    with pytest.raises(services.ReviewError, match="already has exactly this text"):
        services.sign(study, radiologist, version=version_of(study),
                      password=PASSWORD, attested=True)
    decide(study, radiologist, "edit", 1, text="The heart is enlarged.")
    assert (
        Study.objects.get(pk=study.pk).status == Study.Status.READY
    )  # changes await a new sign-off
    second = services.sign(study, radiologist, version=version_of(study),
                           password=PASSWORD, attested=True).signoff
    assert second.version == 2 and "The heart is enlarged." in second.report.text
    assert SignOff.objects.get(pk=first.pk).report.text == rf.REPORT  # version 1 untouched
    assert Report.objects.filter(study=study, kind=Report.Kind.FINAL).count() == 2


def test_sign_on_a_stale_version_is_refused(radiologist):
    study = rf.make_review_study()
    decide_all_open(study, radiologist)
    with pytest.raises(services.StaleVersion):
        services.sign(study, radiologist, version=0, password=PASSWORD, attested=True)


def test_an_altered_final_text_is_never_exported(radiologist):
    study = rf.make_review_study()
    decide_all_open(study, radiologist)
    signoff = services.sign(study, radiologist, version=version_of(study),
                            password=PASSWORD, attested=True).signoff
    Report.objects.filter(pk=signoff.report.pk).update(text="tampered behind the app's back")
    with pytest.raises(services.ReviewError, match="hash"):
        services.export(SignOff.objects.get(pk=signoff.pk), "txt", radiologist)


# --- audit -----------------------------------------------------------------------------------


def test_every_decision_undo_signoff_and_export_is_audited(radiologist):
    study = rf.make_review_study()
    decide(study, radiologist, "accept", rf.EFFUSION)
    services.undo_last(study, radiologist, version=version_of(study))
    decide_all_open(study, radiologist)
    signoff = services.sign(study, radiologist, version=version_of(study),
                            password=PASSWORD, attested=True).signoff
    services.export(signoff, "fhir", radiologist)
    events = list(AuditEvent.objects.filter(study=study).order_by("id"))
    actions = [e.action for e in events]
    assert actions == ["review_decision", "review_undo"] + ["review_decision"] * 4 + [
        "report_signed",
        "report_exported",
        "study_viewed",  # an export is a view of the study too
    ]
    assert all(e.actor == radiologist for e in events)
    first = events[0].detail
    assert first["action"] == "accept" and first["version"] == 0
    assert first["sentence_number"] == rf.EFFUSION + 1  # numbered from 1, as on the page
    assert events[1].detail["undoes"] == first["decision"]
    assert events[-3].detail["version"] == 1 and events[-3].detail["sha256"] == signoff.sha256
    assert events[-2].detail["format"] == "fhir"
    assert events[-1].detail == {"via": "export", "signed_version": 1}


def test_stored_detections_are_audited():
    from workers.types import Detection as Found

    study = factories.make_study()
    report = factories.make_report(study, rf.REPORT)
    rows = services.store_detections(report, [
        Found(2, 10, 20, "radflag", "weak support", "medium", 0.8, {"support": 1, "n": 10}),
        Found(3, 30, 40, "radflag", "weak support", "low", 0.6),
    ])
    assert [r.sentence.index for r in rows] == [2, 3]
    event = AuditEvent.objects.get(action="flags_raised")
    assert event.detail == {"detector": "radflag", "detections": 2, "flagged": 2}


def test_decisions_are_made_on_the_uploaded_report_even_beside_a_longer_candidate(radiologist):
    """The audited report is the uploaded one if any, else the generated candidate: a sentence
    number only the candidate has is not a sentence of the report under review."""
    study = rf.make_review_study()
    factories.make_report(study, rf.REPORT + " Extra sentence one. Extra sentence two.",
                          kind=Report.Kind.CANDIDATE)
    with pytest.raises(services.ReviewError, match="No such sentence"):
        decide(study, radiologist, "edit", 9, text="Anything.")
    outcome = decide(study, radiologist, "edit", 1, text="The heart is enlarged.")
    assert outcome.decision.sentence.report.kind == Report.Kind.UPLOADED


def test_without_an_uploaded_report_decisions_go_to_the_candidate(radiologist):
    study = factories.make_study()
    factories.make_report(study, rf.REPORT, kind=Report.Kind.CANDIDATE)
    rf.finish_pipeline(study)
    outcome = decide(study, radiologist, "edit", 1, text="The heart is enlarged.")
    assert outcome.decision.sentence.report.kind == Report.Kind.CANDIDATE
    with pytest.raises(services.ReviewError, match="No such sentence"):
        decide(study, radiologist, "edit", 40, text="Anything.")


def test_a_study_without_a_report_has_nothing_to_decide(radiologist):
    study = factories.make_study()
    rf.finish_pipeline(study)
    with pytest.raises(services.ReviewError, match="no report"):
        decide(study, radiologist, "edit", 0, text="Anything.")
