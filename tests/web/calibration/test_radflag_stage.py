"""The radflag stage in the app: support stored per sentence, radflag detections, the report
flag in every detection's evidence, the study's result naming the calibration that flagged it,
and what the review page shows."""
import pytest

from radreview.audit.models import AuditEvent
from radreview.calibration import services
from radreview.calibration.models import StudyRadFlag
from radreview.review.models import Detection

from .helpers import make_calibration, run_radflag_only, upload_with_samples

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    from radreview.jobs import services as jobs

    monkeypatch.setattr(jobs, "send", lambda job_id, queue: None)


def test_default_thresholds_flag_and_say_so(radiologist):
    study = run_radflag_only(upload_with_samples(radiologist))
    sentences = {s.index: s for s in study.audited_report.sentences.all()}
    assert [(s.support, s.support_n) for s in sentences.values()] == [
        (10, 10),
        (2, 10),
        (10, 10),
        (0, 10),
        (0, 10),
    ]
    assert (
        len(sentences[1].support_verdicts) == 10
        and sentences[1].support_verdicts[0]["verdict"] == "partial"
    )
    rows = list(Detection.objects.filter(detector="radflag").order_by("sentence_index"))
    assert [d.sentence_index for d in rows] == [1, 3, 4] and all(d.flagged for d in rows)
    assert rows[0].explanation.count("supported by 2 of 10 samples") == 1
    evidence = rows[0].evidence
    assert (
        evidence["calibration"] is None
        and evidence["thresholds"] == "default"
        and evidence["lambda1"] == 3
    )
    assert (
        evidence["report_flagged"] is True
        and evidence["lambda2"] == 2
        and evidence["flagged_sentences"] == 3
    )
    result = StudyRadFlag.objects.get(study=study)
    assert result.calibration is None and result.report_flagged and result.flagged_sentences == 3
    assert AuditEvent.objects.filter(study=study, action="report_flagged").exists()


def test_the_active_calibration_flags_and_is_recorded(radiologist, site_admin):
    older = make_calibration(alpha=0.3)
    calibration = make_calibration(alpha=0.2, target=0.0)
    services.activate(older, actor=site_admin)
    services.activate(calibration, actor=site_admin)  # deactivates the older one
    assert services.active_calibration() == calibration
    study = run_radflag_only(upload_with_samples(radiologist))
    result = StudyRadFlag.objects.get(study=study)
    assert result.calibration == calibration and result.lambda1 == calibration.lambda1
    assert result.lambda2 == calibration.lambda2
    flagged = {d.sentence_index: d for d in Detection.objects.filter(detector="radflag")}
    assert set(flagged) == {s["index"] for s in result.sentences if s["flagged"]}
    for detection in flagged.values():
        assert detection.evidence["calibration"] == calibration.pk
        assert detection.evidence["calibration_version"] == calibration.version
        assert detection.evidence["thresholds"] == "calibration"
        assert detection.evidence["report_flagged"] is result.report_flagged


def test_a_calibration_for_another_n_is_rescaled_and_noted(radiologist, site_admin):
    services.activate(make_calibration(n=5, alpha=0.2), actor=site_admin)
    study = run_radflag_only(upload_with_samples(radiologist))
    result = StudyRadFlag.objects.get(study=study)
    assert result.n_samples == 10 and "rescaled" in result.note
    assert all(
        "rescaled" in d.evidence["note"] for d in Detection.objects.filter(detector="radflag")
    )


def test_the_review_page_shows_support_the_samples_and_the_report_banner(
    radiologist, radiologist_client
):
    study = run_radflag_only(upload_with_samples(radiologist))
    body = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="report-warning"' in body and "This report is flagged as a whole" in body
    assert "supported by <strong>2 of 10</strong> sampled reports" in body
    assert "Show the 10 samples and their verdicts" in body
    assert (
        "FINDINGS: Heart size is normal. Small right pleural effusion." in body
    )  # a sample's text
    assert "No active calibration: default thresholds (λ1 = 3 of 10 samples, λ2 = 2)" in body


def test_the_api_gives_each_sentences_support(radiologist, api_client):
    study = run_radflag_only(upload_with_samples(radiologist))
    reports = api_client.get(f"/api/studies/{study.pk}/").json()["reports"]
    candidate = next(r for r in reports if r["kind"] == "candidate")
    assert [(s["support"], s["support_n"]) for s in candidate["sentences"]][:2] == [
        (10, 10),
        (2, 10),
    ]
    assert sum(r["kind"] == "sample" for r in reports) == 10


def test_no_banner_when_too_few_sentences_are_flagged(radiologist, radiologist_client, settings):
    settings.RADFLAG_DEFAULT_LAMBDA2 = 4
    study = run_radflag_only(upload_with_samples(radiologist))
    assert not StudyRadFlag.objects.get(study=study).report_flagged
    assert (
        'id="report-warning"'
        not in radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    )
