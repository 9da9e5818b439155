"""The rule engine in the app: label_reports as a command, findings per sentence on the page."""
import json

import pytest
from django.core.management import CommandError, call_command

from radreview.jobs import runner, services
from tests import factories
from workers.pipeline import StudyInputs


def test_label_reports_writes_labels_and_findings_per_report(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"id": "a", "report": "FINDINGS: Small left pleural effusion. No pneumothorax."})
        + "\n"
        + json.dumps({"id": "b", "findings": "Lungs are clear.", "impression": "No acute disease."})
        + "\n"
    )
    target = tmp_path / "out.jsonl"
    call_command("label_reports", "--input", str(source), "--output", str(target))
    rows = {row["id"]: row for row in map(json.loads, target.read_text().splitlines())}
    assert rows["a"]["labels"]["Pleural Effusion"] == 1 and rows["a"]["labels"]["Pneumothorax"] == 0
    assert rows["a"]["labels"]["No Finding"] == 0
    effusion = next(f for f in rows["a"]["findings"] if f["observation"] == "pleural effusion")
    assert effusion == {**effusion, "sentence": 0, "status": "present", "laterality": "left"}
    assert rows["b"]["labels"]["No Finding"] == 1


def test_label_reports_names_the_bad_line(tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": "a", "report": "No effusion."}\n{not json\n')
    with pytest.raises((CommandError, SystemExit, ValueError), match="2"):
        call_command(
            "label_reports", "--input", str(source), "--output", str(tmp_path / "out.jsonl")
        )


def parsed_study(text, capture_on_commit):
    """A study with report ``text`` whose parse stage has run (no worker: jobs run here)."""
    study = factories.make_study(status="queued")
    factories.make_report(study, text, with_sentences=False)
    services.plan_jobs(study, StudyInputs(has_images=False, has_report=True))
    with capture_on_commit(execute=True):
        services.start_next(study)
    runner.run_job(study.jobs.get(stage="parse_report").pk)
    return study


@pytest.mark.django_db
def test_the_study_page_shows_each_sentences_findings_on_demand(
    radiologist_client, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(services, "send", lambda job_id, queue: None)
    study = parsed_study("FINDINGS: Small left pleural effusion. Heart size is normal.",
                         django_capture_on_commit_callbacks)

    page = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert "<details class=\"findings\">" in page
    assert "category Pleura" in page
    for word in ("pleural effusion", "present", "left", "small"):
        assert f"<td>{word}</td>" in page


@pytest.mark.django_db
def test_a_report_with_nothing_to_audit_says_so_on_the_study_page(
        radiologist_client, django_capture_on_commit_callbacks, monkeypatch):
    monkeypatch.setattr(services, "send", lambda job_id, queue: None)
    study = parsed_study("FINAL REPORT\nINDICATION: Evaluate for pneumonia.\n\nCOMPARISON: None.",
                         django_capture_on_commit_callbacks)
    job = study.jobs.get(stage="parse_report")
    assert job.state == "done" and job.result["image_sentences"] == 0
    page = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'class="job-note"' in page and "none was audited" in page

    sound = parsed_study("FINDINGS: Lungs are clear.", django_capture_on_commit_callbacks)
    page = radiologist_client.get(f"/studies/{sound.pk}/").content.decode()
    assert 'class="job-note"' not in page
