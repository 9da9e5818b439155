"""Drafting quality: a drafted study signed is compared with its signed report in a worker, the
errors kept with the drafting model's name and version; the admin page counts them per version
and week, links every number to its studies, plots them and exports them as CSV."""
from __future__ import annotations

import csv
import io
import json
import re
from types import SimpleNamespace

import pytest

from radreview.audit.models import AuditEvent
from radreview.calibration import sample_stage
from radreview.compare import selectors
from radreview.compare.models import DraftComparison, DraftError, DraftOrigin
from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.jobs.stages import STAGES
from radreview.studies.models import Report
from tests import factories
from tests.web.compare import drafts
from workers.radflag.stages import GeneratedReport, SampleResult

pytestmark = pytest.mark.django_db


def test_signing_a_draft_queues_its_comparison_and_the_job_stores_the_errors(radiologist):
    study = drafts.drafted_study(radiologist, model="maira-2", version="v1")
    drafts.edit(study, radiologist, drafts.PNEUMOTHORAX, "Small right apical pneumothorax.")
    signoff = drafts.sign(study, radiologist, compare=False)
    comparison = DraftComparison.objects.get(signoff=signoff)
    assert (comparison.model_name, comparison.model_version) == ("maira-2", "v1")
    assert comparison.state == "pending" and not comparison.unchanged and comparison.current
    assert comparison.week == drafts.this_week() and comparison.week.weekday() == 0
    job = Job.objects.get(stage="compare_draft")
    assert job.params == {"comparison": comparison.pk} and job.state == Job.State.QUEUED
    assert job.queue == "cpu" and "compare_draft" in STAGES

    runner.run_job(job.pk)  # what a worker does with the job's message
    comparison.refresh_from_db()
    assert comparison.state == "done"
    assert (comparison.errors_total, comparison.errors_significant) == (1, 1)
    error = DraftError.objects.get(comparison=comparison)
    assert error.category == "missing_finding" and error.significant
    assert error.candidate_sentence == "No pneumothorax."
    assert error.reference_sentence == "Small right apical pneumothorax."
    assert error.explanation == "Rules out pneumothorax, which the reference states."


def test_a_draft_signed_as_drafted_is_unchanged_with_no_error(radiologist):
    study = drafts.drafted_study(radiologist)
    drafts.sign(study, radiologist)
    comparison = DraftComparison.objects.get(study=study)
    assert comparison.unchanged and comparison.state == "done" and comparison.errors_total == 0


def test_a_report_a_person_wrote_is_not_compared(radiologist):
    study = factories.make_study(uploaded_by=radiologist, status="ready")
    factories.make_report(study, drafts.DRAFT)  # uploaded
    drafts.sign(study, radiologist)
    assert not DraftComparison.objects.exists()
    assert not Job.objects.filter(stage="compare_draft").exists()


def test_only_the_latest_signed_version_counts(radiologist):
    study = drafts.drafted_study(radiologist)
    drafts.sign(study, radiologist)
    drafts.edit(study, radiologist, drafts.PNEUMOTHORAX, "Small right apical pneumothorax.")
    drafts.sign(study, radiologist)
    first, second = DraftComparison.objects.filter(study=study).order_by("signoff__version")
    assert not first.current and second.current
    (row,) = selectors.rows()
    assert (row.signed, row.compared, row.errors, row.unchanged) == (1, 1, 1, 0)


def test_a_draft_without_a_recorded_origin_is_named_by_its_source(radiologist):
    study = drafts.drafted_study(radiologist)
    DraftOrigin.objects.filter(report__study=study).delete()
    Report.objects.filter(study=study).update(source="older-generator")
    drafts.sign(study, radiologist)
    comparison = DraftComparison.objects.get(study=study)
    assert (comparison.model_name, comparison.model_version) == ("older-generator", "")


def test_the_sample_stage_notes_the_drafting_model_and_its_version(radiologist):
    study = factories.make_study(uploaded_by=radiologist)
    result = SampleResult(source="retrieval generator", samples=(),
                          candidate=GeneratedReport("FINDINGS: No pneumothorax.", 0.1))
    sample_stage.store(SimpleNamespace(study=study), result)
    origin = DraftOrigin.objects.get(report__study=study, report__kind=Report.Kind.CANDIDATE)
    assert (origin.model_name, origin.model_version) == ("retrieval generator", "builtin")


def test_the_page_counts_per_version_and_week(radiologist, admin_client_):
    drafts.signed_drafts(radiologist)
    rows = {(r.model_version, r.week): r for r in selectors.rows()}
    this_week = drafts.this_week()
    last_week = this_week.fromordinal(this_week.toordinal() - 7)
    v1, v2 = rows[("v1", last_week)], rows[("v2", this_week)]
    assert (v1.signed, v1.compared, v1.unchanged, v1.errors, v1.significant) == (2, 2, 1, 1, 1)
    assert v1.unchanged_figure.value == 0.5
    assert v1.per_study("missing_finding", significant=True).value == 0.5
    assert v1.per_study("location").value == 0.0
    assert (v2.signed, v2.per_study("severity").value, v2.unchanged_figure.value) == (1, 1.0, 0)

    page = admin_client_.get("/site/drafting/")
    assert page.status_code == 200
    html = page.content.decode()
    assert [(r.model_version, r.week) for r in page.context["rows"]] == [
        ("v2", this_week), ("v1", last_week)]
    assert 'id="drafting-plot"' in html and html.count('<g class="series"') == 4
    assert "maira-2: all errors per study" in html.replace(" (v1)", "").replace(" (v2)", "")
    # every number links to the studies behind it
    v1_row = re.search(r'<tr data-model="maira-2" data-version="v1".*?</tr>', html, re.S).group()
    links = re.findall(r'href="([^"]+)"', v1_row)
    assert len(links) == 2 + 2 * 7  # signed, unchanged, then significant / all per category
    assert all(link.startswith("/site/drafting/studies/?") for link in links)


def test_each_number_links_to_the_studies_behind_it(radiologist, admin_client_):
    studies = drafts.signed_drafts(radiologist)
    v1 = next(r for r in selectors.rows() if r.model_version == "v1")

    def shown(url):
        page = admin_client_.get(url.replace("&amp;", "&"))
        assert page.status_code == 200
        return {c.study_id for c in page.context["page"]}

    assert shown(v1.signed_figure.url) == {studies["v1_unchanged"].pk, studies["v1_missed"].pk}
    assert shown(v1.unchanged_figure.url) == {studies["v1_unchanged"].pk}
    assert shown(v1.per_study("missing_finding", True).url) == {studies["v1_missed"].pk}
    assert shown(v1.per_study("", False).url) == {studies["v1_missed"].pk}
    assert shown(v1.per_study("severity").url) == set()
    page = admin_client_.get(v1.per_study("missing_finding", True).url).content.decode()
    assert "Rules out pneumothorax, which the reference states." in page
    assert f'href="/studies/{studies["v1_missed"].pk}/"' in page
    assert admin_client_.get("/site/drafting/studies/?model=m&version=v&week=bad"
                             ).status_code == 400
    assert admin_client_.get("/site/drafting/studies/?model=m&version=v&category=nonsense"
                             ).status_code == 400


def test_the_csv_has_the_pages_rows_and_is_audited(radiologist, admin_client_, site_admin):
    drafts.signed_drafts(radiologist)
    response = admin_client_.get("/site/drafting/export.csv")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert response["X-Export-Rows"] == "2"
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [(r["version"], r["studies_signed"]) for r in rows] == [("v2", "1"), ("v1", "2")]
    assert rows[1]["missing_finding_significant_per_study"] == "0.5000"
    assert rows[1]["signed_unchanged_share"] == "0.5000"
    assert rows[0]["severity_per_study"] == "1.0000"
    assert AuditEvent.objects.filter(action="drafting_quality_exported",
                                     actor=site_admin).exists()


def test_a_model_name_that_looks_like_a_formula_is_defused_in_the_csv(radiologist,
                                                                      admin_client_):
    study = drafts.drafted_study(radiologist, model="=HYPERLINK(1)", version="-v")
    drafts.sign(study, radiologist)
    body = b"".join(admin_client_.get("/site/drafting/export.csv").streaming_content).decode()
    assert "'=HYPERLINK(1),'-v," in body


def test_a_week_with_a_study_waiting_says_so(radiologist, admin_client_):
    study = drafts.drafted_study(radiologist)
    drafts.sign(study, radiologist, compare=False)
    (row,) = selectors.rows()
    assert (row.signed, row.compared, row.waiting) == (1, 0, 1)
    assert row.per_study().value is None
    html = admin_client_.get("/site/drafting/").content.decode()
    assert "1 awaiting comparison" in html and 'id="no-plot"' in html


def test_only_admins_see_the_page(radiologist_client, client):
    for url in ("/site/drafting/", "/site/drafting/export.csv",
                "/site/drafting/studies/?model=m&version=v"):
        assert radiologist_client.get(url).status_code == 403
    client.logout()
    assert client.get("/site/drafting/").status_code == 302  # to the sign-in page


def test_an_empty_page_says_so(admin_client_):
    html = admin_client_.get("/site/drafting/?weeks=nonsense").content.decode()
    assert 'id="no-drafts"' in html and "last 26 weeks" in html


def test_a_candidate_uploaded_from_an_outside_generator_keeps_its_name_without_a_version(
        radiologist_client):
    radiologist_client.post("/studies/upload/", {
        "candidate_text": "FINDINGS: Heart size is normal. Small left pleural effusion.",
        "samples_text": json.dumps([f"FINDINGS: Sample {i}." for i in range(10)]),
        "generator_name": "vendor-cxr-2 v1.3"})
    origin = DraftOrigin.objects.get()
    assert (origin.model_name, origin.model_version) == ("vendor-cxr-2 v1.3", "")
    assert origin.report.kind == Report.Kind.CANDIDATE


def test_a_failed_comparison_says_why_and_an_admin_can_retry_it(radiologist, admin_client_,
                                                                 site_admin, monkeypatch):
    study = drafts.drafted_study(radiologist, version="v1")

    def broken(draft, signed):
        raise RuntimeError("the comparison engine broke")

    monkeypatch.setattr("radreview.compare.stage.compare_reports", broken)
    drafts.sign(study, radiologist)
    job = Job.objects.get(stage="compare_draft")
    assert job.state == Job.State.FAILED
    comparison = DraftComparison.objects.get(study=study)
    listing = f"/site/drafting/studies/?model=maira-2&version=v1&week={comparison.week}"
    page = admin_client_.get(listing).content.decode()
    assert "The comparison failed:" in page and "Awaiting comparison" not in page
    retry = f"/site/drafting/comparisons/{comparison.pk}/retry/"
    assert f'action="{retry}"' in page

    monkeypatch.undo()
    assert admin_client_.post(retry).url == listing
    job.refresh_from_db()
    assert job.state in (Job.State.PENDING, Job.State.QUEUED)
    assert AuditEvent.objects.filter(action="stage_retried", actor=site_admin,
                                     detail__stage="compare_draft").exists()
    runner.run_job(job.pk)
    comparison.refresh_from_db()
    assert comparison.state == DraftComparison.State.DONE
    page = admin_client_.get(listing).content.decode()
    assert "The comparison failed:" not in page and "Retry the comparison" not in page


def test_only_admins_retry_a_comparison(radiologist, radiologist_client):
    study = drafts.drafted_study(radiologist)
    drafts.sign(study, radiologist, compare=False)
    comparison = DraftComparison.objects.get(study=study)
    url = f"/site/drafting/comparisons/{comparison.pk}/retry/"
    assert radiologist_client.post(url).status_code == 403
    assert radiologist_client.get(url).status_code in (403, 405)
    assert Job.objects.get(stage="compare_draft").state == Job.State.QUEUED
