"""Uploading a candidate and its samples made by a generator outside RadReview: accepted in
every documented form on the page and the API, refused clearly otherwise, nothing stored then."""
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.audit.models import AuditEvent
from radreview.jobs.models import Job
from radreview.studies.models import Report, Study
from tests.support import dicom_factory as dicom

from .test_upload import assert_nothing_stored

CANDIDATE = (
    "FINDINGS: Heart size is normal. Small left pleural effusion.\nIMPRESSION: Small effusion."
)
SAMPLES = [f"FINDINGS: Heart size is normal. Sample {i}." for i in range(10)]


def page(client, **data):
    return client.post("/studies/upload/", data)


def api(api_client, **data):
    return api_client.post("/api/studies/", data, format="multipart")


def stored_reports(study: Study) -> tuple[Report, list[Report]]:
    candidate = study.reports.get(kind=Report.Kind.CANDIDATE)
    samples = list(study.reports.filter(kind=Report.Kind.SAMPLE).order_by("sample_index"))
    return candidate, samples


# --- accepted ----------------------------------------------------------------------------------


def test_page_candidate_with_samples_as_a_json_list(radiologist_client):
    response = page(
        radiologist_client,
        candidate_text=CANDIDATE,
        samples_text=json.dumps(SAMPLES),
        sample_temperature="1.0",
        candidate_temperature="0.1",
        generator_name="vendor-cxr-2",
    )
    study = Study.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/studies/{study.pk}/"
    candidate, samples = stored_reports(study)
    assert (
        candidate.text == CANDIDATE
        and candidate.temperature == 0.1
        and candidate.source == "vendor-cxr-2"
    )
    assert [s.text for s in samples] == SAMPLES and [s.sample_index for s in samples] == list(
        range(10)
    )
    assert all(s.temperature == 1.0 and s.source == "vendor-cxr-2" for s in samples)
    assert study.audited_report == candidate
    # No sampling here; the candidate is parsed and audited by RadFlag.
    assert [job.stage for job in study.jobs.all()][:2] == ["parse_report", "radflag"]
    assert "sample" not in [job.stage for job in study.jobs.all()]
    assert AuditEvent.objects.get(action="study_uploaded").detail["samples"] == 10


def test_page_samples_as_json_lines_and_as_a_file(radiologist_client):
    lines = (
        "\n".join(json.dumps(s) for s in SAMPLES[:3]) + "\n" + json.dumps({"text": "Object form."})
    )
    page(radiologist_client, candidate_text=CANDIDATE, samples_text=lines)
    first = Study.objects.get()
    assert [s.text for s in stored_reports(first)[1]] == SAMPLES[:3] + ["Object form."]
    assert stored_reports(first)[0].source == "external generator"
    assert stored_reports(first)[1][0].temperature is None

    upload = SimpleUploadedFile("samples.jsonl", "\n".join(json.dumps(s) for s in SAMPLES).encode())
    page(radiologist_client, candidate_text=CANDIDATE, samples_file=upload)
    second = Study.objects.exclude(pk=first.pk).get()
    assert len(stored_reports(second)[1]) == 10


def test_api_samples_as_repeated_fields_with_images(api_client):
    image = SimpleUploadedFile("chest.png", dicom.make_png(), content_type="image/png")
    response = api(
        api_client, files=[image], candidate_text=CANDIDATE, samples=SAMPLES, sample_temperature=0.9
    )
    assert response.status_code == 201, response.content
    study = Study.objects.get(pk=response.json()["studies"][0]["id"])
    assert [s.text for s in stored_reports(study)[1]] == SAMPLES
    stages = [job["stage"] for job in response.json()["studies"][0]["jobs"]]
    assert stages[0] == "ingest" and "sample" not in stages and "radflag" in stages
    assert study.jobs.get(stage="ingest").state == Job.State.QUEUED


def test_api_samples_file(api_client):
    upload = SimpleUploadedFile("samples.json", json.dumps(SAMPLES[:2]).encode())
    response = api(api_client, candidate_text=CANDIDATE, samples_file=upload)
    assert response.status_code == 201, response.content
    assert Report.objects.filter(kind=Report.Kind.SAMPLE).count() == 2


def test_the_upload_page_offers_the_external_fields(radiologist_client):
    body = radiologist_client.get("/studies/upload/").content.decode()
    for name in (
        "candidate_text",
        "samples_text",
        "samples_file",
        "sample_temperature",
        "generator_name",
    ):
        assert f'name="{name}"' in body


# --- refused ----------------------------------------------------------------------------------

REFUSALS = {
    "one sample": (
        dict(candidate_text=CANDIDATE, samples_text=json.dumps(SAMPLES[:1])),
        "Only 1 sample: RadFlag needs at least 2.",
    ),
    "no samples": (dict(candidate_text=CANDIDATE), "A candidate made elsewhere needs its samples"),
    "samples without a candidate": (
        dict(samples_text=json.dumps(SAMPLES)),
        "Samples were given without their candidate report",
    ),
    "an empty sample": (
        dict(candidate_text=CANDIDATE, samples_text=json.dumps(["ok", "  ", "ok"])),
        "Sample 2 is empty.",
    ),
    "too many": (
        dict(candidate_text=CANDIDATE, samples_text=json.dumps(["x"] * 51)),
        "51 samples: at most 50 are accepted.",
    ),
    "too long": (
        dict(candidate_text=CANDIDATE, samples_text=json.dumps(["x", "y" * 20_001])),
        "Sample 2 has 20,001 characters; the limit is 20,000.",
    ),
    "candidate too long": (
        dict(candidate_text="y" * 20_001, samples_text=json.dumps(["x", "x"])),
        "The candidate report has 20,001 characters",
    ),
    "bad json line": (
        dict(candidate_text=CANDIDATE, samples_text='"one"\n"two\n"three"'),
        "Samples, line 2: not valid JSON",
    ),
    "bad json list": (
        dict(candidate_text=CANDIDATE, samples_text='["one", "two"'),
        "Samples: not a valid JSON list",
    ),
    "not texts": (
        dict(candidate_text=CANDIDATE, samples_text="[1, 2]"),
        "Samples, item 1: expected a sample report text",
    ),
    "report and candidate": (
        dict(report_text=CANDIDATE, candidate_text=CANDIDATE, samples_text=json.dumps(SAMPLES)),
        "Give either a report to audit, or a candidate with its samples",
    ),
    "two ways": (
        dict(candidate_text=CANDIDATE, samples_text=json.dumps(SAMPLES), samples=SAMPLES),
        "Give the samples one way only",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_api_refusals_name_the_problem_and_store_nothing(api_client, case):
    data, message = REFUSALS[case]
    response = api(api_client, **data)
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert_nothing_stored()


@pytest.mark.parametrize(
    "case", ["one sample", "samples without a candidate", "an empty sample", "bad json line"]
)
def test_page_refusals_show_the_message_and_keep_the_section_open(radiologist_client, case):
    data, message = REFUSALS[case]
    response = page(radiologist_client, **data)
    assert response.status_code == 400
    body = response.content.decode()
    assert message in body and 'id="external-samples" open' in body
    assert_nothing_stored()


def test_a_samples_file_that_is_not_text_is_refused(api_client):
    upload = SimpleUploadedFile("samples.jsonl", b"\x00\x01binary")
    response = api(api_client, candidate_text=CANDIDATE, samples_file=upload)
    assert response.status_code == 400 and "not a text file of samples" in response.json()["detail"]
    assert_nothing_stored()


def test_samples_with_dicoms_of_two_studies_are_refused(api_client):
    files = [SimpleUploadedFile("a.dcm", dicom.make_dicom(study_uid="1.2.3.4")),
             SimpleUploadedFile("b.dcm", dicom.make_dicom(study_uid="1.2.3.5", seed=2))]
    response = api(api_client, files=files, candidate_text=CANDIDATE, samples=SAMPLES)
    assert response.status_code == 400 and "different studies" in response.json()["detail"]
    assert_nothing_stored()
