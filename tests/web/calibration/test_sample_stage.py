"""The sample stage in the app: generated candidate and samples stored as reports with their
temperatures and the generator's name, then parsed and audited by RadFlag; without a
generator, a study with an uploaded report is audited without RadFlag and says why."""
import sys

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.audit.models import AuditEvent
from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.review.models import Detection
from radreview.studies.models import Report, Study
from radreview.studies.services.upload import UploadRequest, create_studies
from tests.support import dicom_factory as dicom
from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends import registry

from .helpers import CANDIDATE, SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    from radreview.jobs import services as jobs

    monkeypatch.setattr(jobs, "send", lambda job_id, queue: None)


@pytest.fixture
def builtin_afterwards(settings):
    yield
    registry.configure(settings.MODEL_ROLES)


def run_through(study, last_stage: str):
    """Run the study's queued jobs in order, up to and including ``last_stage``."""
    for _ in range(10):
        job = study.jobs.filter(state=Job.State.QUEUED).order_by("order").first()
        if job is None:
            return
        runner.run_job(job.pk)
        job.refresh_from_db()
        assert job.state == Job.State.DONE, (job.stage, job.error)
        if job.stage == last_stage:
            return


def png() -> SimpleUploadedFile:
    return SimpleUploadedFile("chest.png", dicom.make_png(), content_type="image/png")


def test_a_generator_drafts_the_candidate_and_samples_then_radflag_audits(
    radiologist, settings, builtin_afterwards
):
    def script(body):
        if body["temperature"] < 0.5:
            return Reply(body=completion(CANDIDATE))
        return Reply(body=completion(*SAMPLES[: body["n"]]))

    with FakeServer() as server:
        server.script = script
        registry.configure(
            {**settings.MODEL_ROLES, "generator": f"openai:{server.url}?model=cxr-gen&retries=0"}
        )
        (study,) = create_studies(user=radiologist, request=UploadRequest(files=[png()]))
        stages = [job.stage for job in study.jobs.all()]
        assert stages[:4] == ["ingest", "sample", "parse_report", "radflag"]
        assert (
            study.jobs.get(stage="sample").queue == "cpu"
        )  # an HTTP generator needs no GPU worker
        run_through(study, "radflag")
    candidate = study.reports.get(kind=Report.Kind.CANDIDATE)
    assert (candidate.text, candidate.temperature, candidate.source) == (CANDIDATE, 0.1, "cxr-gen")
    samples = list(study.reports.filter(kind=Report.Kind.SAMPLE).order_by("sample_index"))
    assert [s.sample_index for s in samples] == list(range(10)) and [
        s.text for s in samples
    ] == SAMPLES
    assert all(s.temperature == 1.0 and s.source == "cxr-gen" for s in samples)
    assert study.jobs.get(stage="sample").result == {
        "generator": "cxr-gen",
        "samples": 10,
        "candidate": True,
    }
    assert study.audited_report == candidate
    assert {
        d.sentence_index for d in Detection.objects.filter(report=candidate, detector="radflag")
    } == {1, 3, 4}


def test_with_a_report_and_no_generator_radflag_is_skipped_and_says_why(radiologist, monkeypatch):
    monkeypatch.setitem(
        sys.modules, "workers.rarrg.generator", None
    )  # no built-in generator either
    (study,) = create_studies(
        user=radiologist, request=UploadRequest(files=[png()], report_text=CANDIDATE)
    )
    run_through(study, "radflag")
    assert not study.reports.filter(kind__in=[Report.Kind.SAMPLE, Report.Kind.CANDIDATE]).exists()
    assert (
        study.jobs.get(stage="sample")
        .result["skipped"]
        .startswith("RadFlag skipped: No report generator")
    )
    assert study.jobs.get(stage="radflag").result["skipped"].startswith("RadFlag skipped")
    assert AuditEvent.objects.filter(study=study, action="radflag_skipped").count() == 2
    assert not Detection.objects.filter(detector="radflag").exists()


def test_an_image_only_study_without_a_generator_waits_for_its_report(radiologist):
    """No generator and an empty image memory: nothing can be drafted, so the study is not
    failed: its images are ingested and it waits for its report (radreview/dictation)."""
    (study,) = create_studies(user=radiologist, request=UploadRequest(files=[png()]))
    assert [job.stage for job in study.jobs.all()] == ["ingest"]
    runner.run_job(study.jobs.get(stage="ingest").pk)
    study.refresh_from_db()
    assert study.status == Study.Status.AWAITING_REPORT
