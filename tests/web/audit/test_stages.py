"""The audit and combine stages through the job runner (in-process): detections stored with
their sources, flags from the site's combination settings, and the study page showing them
with explanations and harm levels."""
import pytest

from radreview.detectors import combine_stage
from radreview.detectors.models import CombinationSettings, FilterRule
from radreview.jobs import runner, services
from radreview.jobs.models import Job
from radreview.library import text_library
from radreview.review.models import Detection
from radreview.studies.models import Study
from tests import factories
from tests.workers.library.fakes import REFERENCE_REPORTS
from workers.library import LibraryReport
from workers.pipeline import StudyInputs

REPORT = ("FINDINGS: Heart size is normal. There is focal airspace consolidation. No pleural "
          "effusion or pneumothorax. Stable mild cardiomegaly.\n"
          "IMPRESSION: No acute cardiopulmonary abnormality.")


@pytest.fixture
def sent(monkeypatch):
    messages = []
    monkeypatch.setattr(services, "send", lambda job_id, queue: messages.append(job_id))
    return messages


@pytest.fixture
def library(embedder, django_capture_on_commit_callbacks):
    reports = [LibraryReport(i, text) for i, text in REFERENCE_REPORTS]
    plan = text_library.ImportPlan("jsonl", reports, 0)
    with django_capture_on_commit_callbacks(execute=True):
        text_library.store_import(plan, text_library.embed_plan(plan))


def run_pipeline(study, sent, capture):
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with capture(execute=True):
        services.start_next(study)
    while sent:
        with capture(execute=True):
            runner.run_job(sent.pop(0))
    study.refresh_from_db()
    return study


@pytest.mark.django_db
def test_a_report_study_is_audited_combined_and_shown(sent, library, radiologist_client,
                                                     django_capture_on_commit_callbacks):
    study = factories.make_study(has_prior=False)
    report = factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    assert [j.stage for j in study.jobs.all()] == ["parse_report", "audit", "combine"]
    assert study.status == Study.Status.READY, [j.error for j in study.jobs.all()]

    raw = report.detections.exclude(detector="combined")
    assert {"correction", "judge", "comparative"} <= set(raw.values_list("detector", flat=True))
    correction = raw.get(detector="correction", evidence__stages__localize__rank=1)
    assert correction.sentence_index == 1 and correction.sentence.text.startswith("There is")
    # the only other sentence about it is the normal impression, the doubted side of the pair
    # (workers.contradiction): the finding is not negated to agree with it
    assert correction.suggestion is None
    assert correction.evidence["stages"]["correct"]["method"] == "two_readings"
    assert "other" not in {r["choice"] for r in correction.evidence["readings"]}
    assert correction.evidence["neighbours"]  # external retrieval from the imported library
    # stage 1 also found the comparison with a prior exam the study does not have
    assert raw.filter(detector="correction", sentence_index=3).exists()

    flagged = report.detections.filter(detector="combined", flagged=True)
    # the lost negation; "stable" without a prior exam; the two contradicting pairs ("Heart
    # size is normal" / "Stable mild cardiomegaly", the consolidation / the normal impression)
    assert set(flagged.values_list("sentence_index", flat=True)) == {0, 1, 3, 4}
    merged = flagged.filter(sentence_index=1).order_by("-confidence").first()
    assert {s.detector for s in merged.sources.all()} >= {"correction", "judge"}
    assert merged.harm == "medium"

    page = radiologist_client.get(f"/studies/{study.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert correction.explanation.replace("'", "&#x27;") in html
    assert "Medium" in html and "Three-stage correction" in html
    assert "Comparison without a prior" in html


@pytest.mark.django_db
def test_combine_follows_the_site_settings_and_rules(sent, library,
                                                     django_capture_on_commit_callbacks):
    settings_row = CombinationSettings.current()
    settings_row.flag_threshold = 0.99
    settings_row.save()
    FilterRule.objects.create(name="no comparisons", kind="pattern", pattern=r"prior exam")
    study = factories.make_study(has_prior=False)
    report = factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    combined = report.detections.filter(detector="combined")
    assert combined.exists() and not combined.filter(flagged=True).exists()
    # (sentence 3 also has the contradiction pair's detection: "Heart size is normal")
    comparison = combined.get(sentence_index=3, explanation__contains="prior exam")
    assert comparison.evidence["filtered_by"] == "no comparisons"


@pytest.mark.django_db
def test_with_the_combination_off_the_raw_flags_are_shown(sent, library, radiologist_client,
                                                         django_capture_on_commit_callbacks):
    CombinationSettings.objects.filter(pk=1).update(enabled=False)
    study = factories.make_study(has_prior=True)
    report = factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    assert not report.detections.filter(detector="combined").exists()
    assert not report.detections.filter(detector="comparative").exists()  # a prior exists
    assert report.detections.filter(detector="correction", flagged=True).exists()
    assert study.jobs.get(stage="combine").result["reason"] == "switched off"


@pytest.mark.django_db
def test_combine_replaces_its_rows_when_run_again(sent, library,
                                                  django_capture_on_commit_callbacks):
    study = factories.make_study(has_prior=False)
    report = factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    before = report.detections.filter(detector="combined").count()
    job = study.jobs.get(stage="combine")
    Job.objects.filter(pk=job.pk).update(state=Job.State.QUEUED)
    runner.run_job(job.pk)
    assert report.detections.filter(detector="combined").count() == before
    assert Detection.objects.filter(detector="combined", sources__isnull=True).count() == 0


@pytest.mark.django_db
def test_an_index_made_by_another_embedder_fails_the_stage_with_what_to_do(
        sent, library, embedder, django_capture_on_commit_callbacks):
    embedder.dim = 32  # as if RADREVIEW_TEXT_EMBEDDER had changed since the import
    text_library.forget_cached_library()
    study = factories.make_study()
    factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    audit = study.jobs.get(stage="audit")
    assert audit.state == Job.State.FAILED and "import_reference" in audit.error


@pytest.mark.django_db
def test_a_stage_that_skipped_takes_no_part_in_the_combination(sent, library,
                                                               django_capture_on_commit_callbacks):
    study = factories.make_study(has_prior=True)
    factories.make_report(study, REPORT, with_sentences=False)
    run_pipeline(study, sent, django_capture_on_commit_callbacks)
    Job.objects.create(study=study, stage="vrag", order=9, state=Job.State.DONE,
                       result={"skipped": "the image memory is empty"})
    Job.objects.create(study=study, stage="radflag", order=8, state=Job.State.DONE, result={})
    inputs = combine_stage.load(study.jobs.get(stage="combine"))
    # no vrag, no comparative
    assert set(inputs.rows) == {"correction", "judge", "contradiction", "radflag"}
