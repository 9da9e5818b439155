"""The admin calibration page: upload, run as a site job with progress, the plot and the λ2
table, activation (versioned, audited, previous deactivated); radiologists are refused."""
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.audit.models import AuditEvent
from radreview.calibration import services
from radreview.calibration.models import Activation, Calibration
from radreview.jobs import runner
from radreview.jobs.models import Job
from tests.support.two_factor import verified_login
from workers.radflag.calibration import calibrate, prepare, read_lines

from .helpers import CANDIDATE, SAMPLES, make_calibration, pre_scored_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    from radreview.jobs import services as jobs

    messages = []
    monkeypatch.setattr(jobs, "send", lambda job_id, queue: messages.append((job_id, queue)))
    return messages


def upload(client, lines, *, alpha="0.2", target="0.25", per_category=False, name="cal.jsonl"):
    data = {"file": SimpleUploadedFile(name, "\n".join(lines).encode()), "alpha": alpha,
            "target_report_rate": target}
    if per_category:
        data["per_category"] = "on"
    return client.post("/site/calibration/run/", data)


@pytest.mark.parametrize(
    "method, path",
    [
        ("get", "/site/calibration/"),
        ("post", "/site/calibration/run/"),
        ("get", "/site/calibration/runs/1/"),
        ("get", "/site/calibration/1/"),
        ("post", "/site/calibration/1/activate/"),
        ("post", "/site/calibration/defaults/"),
        ("get", "/site/calibration/reviewed.jsonl"),
        ("post", "/site/calibration/combination/fit/"),
        ("get", "/site/calibration/combination/1/"),
        ("post", "/site/calibration/combination/1/activate/"),
        ("post", "/site/calibration/combination/raw/"),
    ],
)
def test_radiologists_are_refused(radiologist_client, method, path):
    make_calibration()
    assert getattr(radiologist_client, method)(path).status_code == 403


def test_admin_nav_links_to_the_page(site_admin, radiologist):
    from django.test import Client

    admin, reader = Client(), Client()
    verified_login(admin, site_admin)
    reader.force_login(radiologist)
    assert 'href="/site/calibration/"' in admin.get("/").content.decode()
    assert 'href="/site/calibration/"' not in reader.get("/").content.decode()


def test_a_run_becomes_a_version_with_plot_and_table(
    admin_client_, site_admin, sent, django_capture_on_commit_callbacks
):
    page = admin_client_.get("/site/calibration/").content.decode()
    assert "No active calibration" in page and "λ1 = 3 of 10" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(admin_client_, pre_scored_lines(), per_category=True)
    job = Job.objects.get(stage="calibrate")
    assert (
        response.status_code == 302 and response["Location"] == f"/site/calibration/runs/{job.pk}/"
    )
    assert sent == [(job.pk, "cpu")] and job.params["alpha"] == 0.2 and job.params["per_category"]
    assert AuditEvent.objects.filter(action="calibration_run_started", detail__job=job.pk).exists()

    waiting = admin_client_.get(f"/site/calibration/runs/{job.pk}/").content.decode()
    assert 'id="run-progress"' in waiting and 'hx-trigger="every 1s"' in waiting

    runner.run_job(job.pk)  # what the worker does with the message
    job.refresh_from_db()
    assert job.state == Job.State.DONE, job.error
    calibration = Calibration.objects.get()
    assert (
        calibration.version == 1 and calibration.created_by == site_admin and calibration.job == job
    )
    assert (
        calibration.n_reports == 12
        and calibration.n_sentences == 60
        and calibration.n_samples == 10
    )
    assert set(calibration.lambda1_by_category) == {"Lungs", "Pleura"}
    htmx = admin_client_.get(f"/site/calibration/runs/{job.pk}/", HTTP_HX_REQUEST="true")
    assert htmx["HX-Redirect"] == f"/site/calibration/{calibration.pk}/"
    assert (
        admin_client_.get(f"/site/calibration/runs/{job.pk}/")["Location"]
        == f"/site/calibration/{calibration.pk}/"
    )

    detail = admin_client_.get(f"/site/calibration/{calibration.pk}/").content.decode()
    assert "<svg" in detail and detail.count("<polyline") == 5 and 'class="alpha-line"' in detail
    assert f"λ1 = {calibration.lambda1}" in detail
    table = re.search(r'<table class="worklist figures" id="lambda2-table">(.*?)</table>',
                      detail, re.S).group(1)
    assert table.count("<tr") == 6  # header + λ2 = 1..5
    assert 'id="category-table"' in detail
    assert (
        'id="activate"' in detail and "<script" not in detail.split("<main")[1]
    )  # no chart library


def test_activation_is_versioned_and_audited(admin_client_, site_admin):
    first, second = make_calibration(alpha=0.3), make_calibration(alpha=0.2)
    assert (first.version, second.version) == (1, 2)
    admin_client_.post(f"/site/calibration/{first.pk}/activate/")
    admin_client_.post(f"/site/calibration/{second.pk}/activate/")
    assert services.active_calibration() == second
    assert (
        'id="active-badge"' in admin_client_.get(f"/site/calibration/{second.pk}/").content.decode()
    )
    assert 'id="activate"' in admin_client_.get(f"/site/calibration/{first.pk}/").content.decode()
    events = AuditEvent.objects.filter(action="calibration_activated").order_by("id")
    assert [e.detail["calibration"] for e in events] == [first.pk, second.pk]
    assert events.last().detail["previous"] == first.pk
    admin_client_.post("/site/calibration/defaults/")
    assert services.active_calibration() is None and Activation.objects.count() == 3
    assert Calibration.objects.count() == 2  # nothing deleted
    assert services.active_thresholds().calibration_id is None


def test_calibrations_and_activations_are_never_edited(site_admin):
    calibration = make_calibration()
    with pytest.raises(ValueError):
        calibration.save()
    with pytest.raises(ValueError):
        calibration.delete()
    activation = services.activate(calibration, actor=site_admin)
    with pytest.raises(ValueError):
        activation.save()


@pytest.mark.parametrize(
    "lines, alpha, message",
    [
        (
            [
                json.dumps(
                    {
                        "id": "a",
                        "n_samples": 3,
                        "sentences": [{"text": "x", "support": 7, "factual": True}],
                    }
                )
            ],
            "0.2",
            "cal.jsonl:1: sentence 1: support 7 is outside 0..3",
        ),
        (["{oops"], "0.2", "cal.jsonl:1: bad JSON"),
        (['{"id": ' * 1100 + "1" + "}" * 1100], "0.2",
         "cal.jsonl:1: the JSON is nested too deeply (the limit is 32 levels)"),
        ([], "0.2", "no calibration reports"),
        (pre_scored_lines(), "1.0", "Ensure this value is less than or equal to 0.9999"),
    ],
)
def test_bad_files_and_settings_are_refused_before_a_run(admin_client_, lines, alpha, message):
    response = upload(admin_client_, lines, alpha=alpha)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Job.objects.filter(stage="calibrate").exists()


def test_a_raw_file_is_scored_by_the_engine_in_the_job(admin_client_, sent):
    ground_truth = "FINDINGS: Heart size is normal. Small right pleural effusion. No pneumothorax."
    lines = [
        json.dumps(
            {
                "id": f"raw-{i}",
                "candidate": CANDIDATE,
                "samples": SAMPLES,
                "ground_truth": ground_truth,
            }
        )
        for i in range(3)
    ]
    upload(admin_client_, lines, alpha="0.5", target="0.5")
    job = Job.objects.get(stage="calibrate")
    assert job.params["raw_reports"] == 3
    runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.DONE, job.error
    calibration = Calibration.objects.get()
    assert calibration.n_sentences == 15 and calibration.n_samples == 10
    assert job.result["summary"]["lambda1"] == calibration.lambda1


def test_a_run_that_fails_in_the_worker_shows_the_error(admin_client_, sent):
    upload(
        admin_client_,
        [
            json.dumps(
                {
                    "id": "r",
                    "candidate": "INDICATION: Cough.",
                    "samples": ["a", "b"],
                    "ground_truth": "No effusion.",
                }
            )
        ],
    )
    job = Job.objects.get(stage="calibrate")
    runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED and "line 1" in job.error
    body = admin_client_.get(f"/site/calibration/runs/{job.pk}/").content.decode()
    assert 'id="run-error"' in body and "no findings or impression sentences" in body


def _cells(html, row_selector):
    row = re.search(rf"<tr {row_selector}[^>]*>(.*?)</tr>", html, re.S).group(1)
    cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
    return [" ".join(re.sub(r"<[^>]+>", "", cell).split()) for cell in cells]


def test_the_page_shows_one_risk_figure_per_set_of_thresholds_each_labelled(admin_client_):
    records = read_lines(pre_scored_lines(reports=40))
    reports = prepare(records, categorise=True)
    result = calibrate(reports, alpha=0.2, per_category=True, target_report_rate=0.3)
    calibration = services.create_calibration(result, file_name="cal.jsonl", sha256="0" * 64)
    sentences = [s for r in reports for s in r.sentences]
    true = [s for s in sentences if s.factual]

    def expected(threshold):
        true_flagged = sum(1 for s in true if s.support < threshold(s))
        return (f"{true_flagged / len(sentences):.4f}",
                f"{(true_flagged + 1) / (len(sentences) + 1):.4f}",
                f"{true_flagged / len(true):.4f}")

    overall = expected(lambda s: result.lambda1)
    in_force = expected(lambda s: result.lambda1_by_category.get(s.category, result.lambda1))
    html = admin_client_.get(f"/site/calibration/{calibration.pk}/").content.decode()
    assert ("the share of <em>all</em> calibration sentences that are true <em>and</em> flagged"
            in html)
    overall_row = _cells(html, 'data-set="overall"')
    category_row = _cells(html, 'data-set="per_category"')
    assert overall_row[0].startswith(
        f"Overall: λ1 = {result.lambda1} for every sentence (the plot)")
    assert "in force" not in overall_row[0] and category_row[0].endswith("in force")
    assert tuple(overall_row[1:4]) == overall and tuple(category_row[1:4]) == in_force
    # The plot is the overall λ: its risk point at λ1 is the overall row's risk.
    risk_point = rf"Risk L̂\(λ\)[^<]* at λ = {result.lambda1}: ([0-9.]+)</title>"
    point = re.search(risk_point, html).group(1)
    assert f"{float(point):.4f}" == overall[0]
    assert f"overall λ1 = {result.lambda1}" in html
    # Within each category, at its own λ1.
    lungs = _cells(html, 'data-category="Lungs"')
    members = [s for s in sentences if s.category == "Lungs"]
    lungs_lambda1 = result.lambda1_by_category["Lungs"]
    flagged = sum(1 for s in members if s.factual and s.support < lungs_lambda1)
    assert lungs[4] == f"{flagged / len(members):.4f}"
    assert lungs[6] == f"{flagged / sum(1 for s in members if s.factual):.4f}"


def test_a_calibration_stored_before_the_sets_gets_them_from_its_curve(admin_client_):
    calibration = make_calibration(per_category=True)
    stored = dict(calibration.result)
    del stored["threshold_sets"]
    Calibration.objects.filter(pk=calibration.pk).update(result=stored)
    html = admin_client_.get(f"/site/calibration/{calibration.pk}/").content.decode()
    assert 'data-set="overall"' in html and 'data-set="per_category"' in html
