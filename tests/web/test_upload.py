"""Uploading studies through the page and the API: what is accepted, what is refused and why,
and that a refused upload stores nothing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.audit.models import AuditEvent
from radreview.jobs.models import Job
from radreview.jobs.stages import plan
from radreview.studies.models import Image, Report, Study
from tests.support import dicom_factory as dicom
from tests.support import media
from workers.pipeline import StudyInputs

REPORT = "FINDINGS: Heart size is normal. Lungs are clear.\nIMPRESSION: No acute disease."


def dcm(name="image.dcm", **options) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, dicom.make_dicom(**options), content_type="application/dicom")


def raw(name, data: bytes, content_type="application/octet-stream") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


def stored_files() -> list[str]:
    return media.stored()


def assert_nothing_stored():
    assert Study.objects.count() == 0
    assert Image.objects.count() == 0
    assert Report.objects.count() == 0
    assert Job.objects.count() == 0
    assert not AuditEvent.objects.filter(action="study_uploaded").exists()
    assert stored_files() == []


def upload_page(client, files=(), report_text="", has_prior=False):
    data = {"files": list(files), "report_text": report_text}
    if has_prior:
        data["has_prior"] = "on"
    return client.post("/studies/upload/", data)


def upload_api(api_client, files=(), report_text=""):
    return api_client.post(
        "/api/studies/", {"files": list(files), "report_text": report_text}, format="multipart"
    )


# --- accepted uploads ----------------------------------------------------------------------


def test_dicom_study_with_a_report_creates_one_study_with_metadata_and_jobs(radiologist_client):
    uid = "1.2.826.0.1.3680043.8.498.1"
    response = upload_page(
        radiologist_client,
        [
            dcm("pa.dcm", study_uid=uid, view="PA"),
            dcm("lat.dcm", study_uid=uid, view="LATERAL", seed=3),
        ],
        REPORT,
        has_prior=True,
    )
    study = Study.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/studies/{study.pk}/"
    assert study.study_instance_uid == uid and study.has_prior
    assert study.patient_name == "Test^Patient" and study.accession_number == "ACC-0001"
    assert sorted(study.images.values_list("view", flat=True)) == ["LATERAL", "PA"]
    image = study.images.get(view="PA")
    assert image.kind == "dicom" and image.rows == 256 and image.metadata["modality"] == "DX"
    assert media.read(image.original.name)[128:132] == b"DICM"
    assert study.reports.get().text == REPORT
    stages = [job.stage for job in study.jobs.all()]
    assert stages[0] == "ingest" and "parse_report" in stages
    assert study.jobs.get(stage="ingest").state == Job.State.QUEUED


def test_files_of_two_studies_without_a_report_become_two_studies(radiologist_client):
    upload_page(
        radiologist_client, [dcm(study_uid="1.2.3.4"), dcm("b.dcm", study_uid="1.2.3.5", seed=2)]
    )
    assert sorted(Study.objects.values_list("study_instance_uid", flat=True)) == [
        "1.2.3.4",
        "1.2.3.5",
    ]


def test_compressed_dicom_is_decoded_through_pylibjpeg(radiologist_client):
    response = upload_page(radiologist_client, [dcm(compress="jpeg2000")])
    assert response.status_code == 302
    assert Image.objects.get().metadata["transfer_syntax_uid"] == "1.2.840.10008.1.2.4.90"


def test_png_and_a_txt_report_file(radiologist_client):
    response = upload_page(radiologist_client, [
        raw("chest.png", dicom.make_png(), "image/png"),
        raw("report.txt", REPORT.encode(), "text/plain"),
    ])
    assert response.status_code == 302
    study = Study.objects.get()
    assert study.images.get().kind == "png"
    assert study.reports.get().text == REPORT


def test_report_only_through_the_api(api_client):
    response = upload_api(api_client, report_text=REPORT)
    assert response.status_code == 201
    study = Study.objects.get(pk=response.json()["studies"][0]["id"])
    expected = [stage.name for stage in plan(StudyInputs(has_images=False, has_report=True))]
    assert [job["stage"] for job in response.json()["studies"][0]["jobs"]] == expected
    assert expected[0] == "parse_report" and "ingest" not in expected
    assert study.reports.get().source == "upload"


# --- refused uploads -----------------------------------------------------------------------

SAME = dicom.make_dicom()
REFUSALS = {
    "nothing": (lambda: [], "", "Nothing to upload"),
    "blank report": (lambda: [], "   \n  ", "The report is empty"),
    "empty file": (lambda: [raw("empty.dcm", b"")], "", "the file is empty"),
    "not an image": (
        lambda: [raw("scan.pdf", b"%PDF-1.4\n" + bytes(range(256)) * 40)],
        "",
        "scan.pdf",
    ),
    "truncated dicom": (
        lambda: [raw("t.dcm", dicom.make_malformed_dicom("truncated"))],
        "",
        "t.dcm",
    ),
    "garbage after the DICM marker": (
        lambda: [raw("g.dcm", dicom.make_malformed_dicom("bad_header"))],
        "",
        "g.dcm",
    ),
    "rows beyond the pixel data": (
        lambda: [raw("p.dcm", dicom.make_malformed_dicom("bad_pixels"))],
        "",
        "p.dcm",
    ),
    "corrupt compressed frame": (
        lambda: [raw("c.dcm", dicom.make_malformed_dicom("corrupt_frame"))],
        "",
        "c.dcm",
    ),
    "unsupported transfer syntax": (
        lambda: [raw("v.dcm", dicom.make_unsupported_transfer_syntax_dicom())],
        "",
        "MPEG-4",
    ),
    "DICOM without an image": (lambda: [raw("sr.dcm", dicom.make_sr_dicom())], "", "sr.dcm"),
    "the same file twice": (lambda: [raw("a.dcm", SAME), raw("b.dcm", SAME)], "", "appears twice"),
    "a report with two studies": (
        lambda: [dcm(study_uid="1.2.3.4"), dcm("b.dcm", study_uid="1.2.3.5", seed=2)],
        REPORT,
        "2 different studies",
    ),
    "a report both pasted and as a file": (
        lambda: [raw("r.txt", REPORT.encode(), "text/plain")],
        REPORT,
        "either pasted or as a single .txt file",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_page_refuses_with_a_message_and_stores_nothing(radiologist_client, case):
    files, text, message = REFUSALS[case]
    response = upload_page(radiologist_client, files(), text)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert_nothing_stored()


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_api_refuses_with_a_message_and_stores_nothing(api_client, case):
    files, text, message = REFUSALS[case]
    response = upload_api(api_client, files(), text)
    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert_nothing_stored()


def test_a_file_over_the_per_file_limit_is_refused(radiologist_client, api_client, settings):
    settings.MAX_UPLOAD_FILE_BYTES = 50_000
    big = dicom.make_dicom(rows=256, cols=256)  # about 130 kB
    response = upload_page(radiologist_client, [raw("big.dcm", big)])
    assert response.status_code == 413 and "limit per file" in response.content.decode()
    response = upload_api(api_client, [raw("big.dcm", big)])
    assert response.status_code == 400 and "limit per file" in response.json()["detail"]
    assert_nothing_stored()


def test_a_study_over_the_per_study_limit_is_refused(radiologist_client, settings):
    settings.MAX_UPLOAD_STUDY_BYTES = 200_000
    files = [dcm(f"{i}.dcm", seed=i, study_uid="1.2.3") for i in range(3)]
    response = upload_page(radiologist_client, files)
    assert response.status_code == 413 and "limit per study" in response.content.decode()
    assert_nothing_stored()


def test_a_report_over_the_length_limit_is_refused(api_client, settings):
    settings.MAX_REPORT_CHARS = 1000
    response = upload_api(api_client, report_text="No pneumothorax. " * 100)
    assert response.status_code == 400 and "the limit is 1,000" in response.json()["detail"]
    assert_nothing_stored()


def test_a_failure_while_saving_removes_files_already_written(radiologist_client, monkeypatch):
    from radreview.studies.services import upload

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(upload.jobs, "start_study", explode)
    with pytest.raises(RuntimeError):
        upload_page(radiologist_client, [dcm()], REPORT)
    assert_nothing_stored()


def test_patient_identifiers_never_reach_the_log(radiologist_client, caplog):
    caplog.set_level("DEBUG")
    upload_page(
        radiologist_client,
        [dcm(patient_name="Doe^Jane", patient_id="MRN-778899", accession="ACC-5566")],
        REPORT,
    )
    assert Study.objects.count() == 1
    logged = caplog.text
    for identifier in ("Doe^Jane", "Doe", "MRN-778899", "ACC-5566"):
        assert identifier not in logged
