"""Learning from the radiologists: reviewed studies exported as a pre-scored calibration file,
from the page and as a command, and calibrated again."""
import json

import pytest
from django.core.management import CommandError, call_command

from radreview.audit.models import AuditEvent
from radreview.calibration.export import reviewed_studies
from radreview.review import services as review
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

from .helpers import SAMPLES, run_radflag_only, upload_with_samples

pytestmark = pytest.mark.django_db

# Sentences of helpers.CANDIDATE after RadFlag with the default thresholds: 0 heart (10 of 10),
# 1 effusion (2, flagged), 2 no pneumothorax (10), 3 consolidation (0, flagged),
# 4 impression (0, flagged).


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    from radreview.jobs import services as jobs

    monkeypatch.setattr(jobs, "send", lambda job_id, queue: None)


def decide(study, user, action, index, text=None):
    study.refresh_from_db()
    review.decide(
        study, user, action=action, sentence_index=index, version=study.review_version, text=text
    )


def factual_by_text(record):
    return {s["text"]: s["factual"] for s in record["sentences"]}


def test_decisions_and_signature_make_the_labels(radiologist):
    study = run_radflag_only(upload_with_samples(radiologist))
    untouched = run_radflag_only(upload_with_samples(radiologist))  # never reviewed: not exported
    decide(study, radiologist, "reject", 1)      # kept as written → factual
    decide(study, radiologist, "accept", 3)      # removed → not factual
    decide(study, radiologist, "edit", 4, "Right pleural effusion.")  # changed → not factual
    (record,) = reviewed_studies().records
    assert record["id"] == f"study-{study.pk}" and record["n_samples"] == 10
    # Not signed: the unflagged, undecided sentences are unknown and left out.
    assert [(s["support"], s["factual"]) for s in record["sentences"]] == [
        (2, True),
        (0, False),
        (0, False),
    ]
    assert record["sentences"][0]["category"] == "Pleura"

    study.refresh_from_db()
    review.sign(study, radiologist, version=study.review_version, password=PASSWORD, attested=True)
    (record,) = reviewed_studies().records
    assert [(s["support"], s["factual"]) for s in record["sentences"]] == [
        (10, True), (2, True), (10, True), (0, False), (0, False)]
    assert f"study-{untouched.pk}" not in {r["id"] for r in reviewed_studies().records}


def test_an_undone_decision_does_not_count(radiologist):
    study = run_radflag_only(upload_with_samples(radiologist))
    decide(study, radiologist, "accept", 1)
    decide(study, radiologist, "reject", 3)
    study.refresh_from_db()
    review.undo_last(study, radiologist, version=study.review_version)  # takes back the reject
    (record,) = reviewed_studies().records
    assert [(s["support"], s["factual"]) for s in record["sentences"]] == [(2, False)]


def test_studies_with_another_number_of_samples_are_left_out(radiologist):
    studies = [run_radflag_only(upload_with_samples(radiologist)) for _ in range(2)]
    other = run_radflag_only(upload_with_samples(radiologist, samples=SAMPLES[:3]))
    for study in (*studies, other):
        decide(study, radiologist, "reject", 3)  # flagged with 10 samples and with 3
    export = reviewed_studies()
    assert export.n_samples == 10 and len(export.records) == 2 and export.left_out_other_n == 1
    assert [r["n_samples"] for r in reviewed_studies(3).records] == [3]


def test_page_download_and_command_give_a_file_the_calibrate_command_reads(
    radiologist, admin_client_, tmp_path, capsys
):
    study = run_radflag_only(upload_with_samples(radiologist))
    for index, action in ((1, "reject"), (3, "accept"), (4, "accept")):
        decide(study, radiologist, action, index)
    study.refresh_from_db()
    review.sign(study, radiologist, version=study.review_version, password=PASSWORD, attested=True)

    response = admin_client_.get("/site/calibration/reviewed.jsonl")
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == [f"study-{study.pk}"]
    assert AuditEvent.objects.filter(action="calibration_exported").exists()

    out = tmp_path / "reviewed.jsonl"
    call_command("export_calibration", "--output", str(out))
    assert out.read_text().splitlines() == lines
    capsys.readouterr()
    call_command("calibrate", "--input", str(out), "--alpha", "0.5", "--target-report-rate", "0.5")
    result = json.loads(capsys.readouterr().out)
    assert result["n_sentences"] == 5 and result["n_samples"] == 10


def test_an_empty_download_says_why_instead_of_giving_an_empty_file(admin_client_, tmp_path):
    response = admin_client_.get("/site/calibration/reviewed.jsonl", follow=True)
    assert response.redirect_chain == [("/site/calibration/", 302)]
    assert "Nothing to download. No study has been reviewed yet" in response.content.decode()
    with pytest.raises(CommandError, match="nothing written: No study has been reviewed yet"):
        call_command("export_calibration", "--output", str(tmp_path / "out.jsonl"))
    assert not (tmp_path / "out.jsonl").exists()


def test_an_empty_export_counts_the_studies_left_out_and_why(radiologist, admin_client_):
    for _ in range(2):
        decide(run_radflag_only(upload_with_samples(radiologist)), radiologist, "reject", 3)
    unscored = factories.make_study(uploaded_by=radiologist)  # a report, no samples: no support
    factories.make_report(unscored, "FINDINGS: Clear lungs.")
    rf.finish_pipeline(unscored)
    decide(unscored, radiologist, "edit", 0, "The lungs are clear.")

    export = reviewed_studies(5)
    assert export.records == [] and export.studies_reviewed == 3
    reason = ("None of the 3 reviewed studies can be exported; left out: 1 without RadFlag "
              "support (no samples); 2 with 10 samples instead of 5.")
    assert export.why_empty() == reason
    response = admin_client_.get("/site/calibration/reviewed.jsonl?n_samples=5", follow=True)
    assert reason in response.content.decode()

    full = admin_client_.get("/site/calibration/reviewed.jsonl")
    assert full["X-Reports"] == "2" and full["X-Left-Out"] == "1"
    numbers = [s["number"] for line in full.content.decode().splitlines()
               for s in json.loads(line)["sentences"]]
    assert numbers == [4, 4]  # sentence index 3, numbered from 1 as on the review page
    assert reviewed_studies().summary() == (
        "2 reviewed studies, 2 sentences, n = 10 samples; left out: 1 without RadFlag support "
        "(no samples).")
