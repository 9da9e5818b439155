"""The per-process memory of a reviewable report's unchanging part (review/report_cache.py) and
of rendered decision lines: they save work, never change what is shown."""
from __future__ import annotations

import re

from radreview.jobs.models import Job
from radreview.review import report_cache, services
from radreview.review.memo import Memo
from radreview.review.models import Detection
from radreview.review.templatetags import review_tags
from radreview.studies.models import Study
from tests.support.two_factor import verified_login
from tests.web.review import factories as rf

HTMX = {"HTTP_HX_REQUEST": "true"}
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def region(client, study) -> str:
    """The whole review region, as the poll answers it once the version moved."""
    response = client.get(f"/studies/{study.pk}/review/poll/", {"version": -1}, **HTMX)
    assert response.status_code == 200
    return CSRF.sub("", response.content.decode())  # a fresh mask per answer


def version(study) -> int:
    return Study.objects.get(pk=study.pk).review_version


def test_the_kept_report_shows_exactly_what_a_fresh_read_does(radiologist_client, radiologist):
    study = rf.make_review_study()
    services.decide(study, radiologist, action="accept", sentence_index=rf.EFFUSION,
                    version=0)
    services.decide(study, radiologist, action="edit", sentence_index=rf.CLEAR, version=1,
                    text="The lungs are clear.")
    report_cache.clear()
    fresh = region(radiologist_client, study)
    assert report_cache.get(study.audited_report) is not None
    kept = region(radiologist_client, study)
    assert kept == fresh
    assert "Why it was flagged" in kept and "<strong>3</strong> of 4 flags open" in kept


def test_decisions_take_their_flags_from_the_kept_report(radiologist_client, radiologist):
    study = rf.make_review_study()
    report_cache.clear()
    region(radiologist_client, study)  # keeps the report
    outcome = services.decide(study, radiologist, action="accept", sentence_index=rf.EFFUSION,
                              version=0)
    assert outcome.decision.after_text == rf.EFFUSION_SUGGESTION
    assert outcome.decision.detection_id is not None
    report_cache.clear()
    undone = services.undo_last(study, radiologist, version=version(study))
    again = services.decide(study, radiologist, action="accept", sentence_index=rf.EFFUSION,
                            version=undone.version)
    assert (again.decision.after_text, again.decision.detection_id) == (
        outcome.decision.after_text, outcome.decision.detection_id)


def test_a_report_is_kept_only_once_its_study_is_reviewable(radiologist_client):
    """Until the pipeline is over, stages may still add sentences' support and detections."""
    study = rf.make_review_study()
    report = study.audited_report
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    report_cache.clear()
    assert radiologist_client.get(f"/studies/{study.pk}/").status_code == 200
    assert report_cache.get(report) is None
    Study.objects.filter(pk=study.pk).update(status=Study.Status.READY)
    assert radiologist_client.get(f"/studies/{study.pk}/").status_code == 200
    assert report_cache.get(report) is not None


def test_a_kept_decision_line_follows_its_undo(radiologist_client, radiologist):
    study = rf.make_review_study()
    services.decide(study, radiologist, action="reject", sentence_index=rf.NODULE, version=0)
    assert "(undone)" not in region(radiologist_client, study)
    services.undo_last(study, radiologist, version=1)
    assert "(undone)" in region(radiologist_client, study)


def test_the_memory_is_bounded_and_forgets_the_least_recently_used():
    memo = Memo(limit=2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # "b" is now the least recently used
    memo.put("c", 3)
    assert (memo.get("a"), memo.get("b"), memo.get("c"), len(memo)) == (1, None, 3, 2)
    assert review_tags._lines.limit >= 25  # one answer's lines at least


def test_a_flags_kept_evidence_is_kept_per_kind_of_reader(client, radiologist, site_admin):
    """A radiologist's evidence offers its sources' suggestions; an admin's, kept from the same
    flag afterwards, does not."""
    study = rf.make_review_study()
    Detection.objects.filter(report__study=study, detector="radflag",
                             sentence_index=rf.EFFUSION).update(suggestion="Another reading.")
    report_cache.clear()
    client.force_login(radiologist)
    assert 'class="use-suggestion"' in region(client, study)
    verified_login(client, site_admin)
    shown = region(client, study)
    assert "Why it was flagged" in shown and 'class="use-suggestion"' not in shown
    client.force_login(radiologist)
    assert 'class="use-suggestion"' in region(client, study)


def test_the_region_names_a_running_stage_until_the_study_is_reviewable(radiologist_client):
    """A reviewable study's status is shown without reading its jobs (all done); before that,
    the running stage is named as on the worklist."""
    study = rf.make_review_study()
    Study.objects.filter(pk=study.pk).update(status=Study.Status.PROCESSING)
    Job.objects.filter(study=study, stage="parse_report").update(state=Job.State.RUNNING,
                                                                 progress=0.4)
    assert ('<span class="stage">Reading the report · 40%</span>'
            in region(radiologist_client, study))
    Job.objects.filter(study=study).update(state=Job.State.DONE, progress=1.0)
    Study.objects.filter(pk=study.pk).update(status=Study.Status.READY)
    shown = region(radiologist_client, study)
    assert '<span class="status status-ready">Ready for review</span>' in shown
    assert 'class="stage"' not in shown
