"""The radiologist's day with real processes (issue 30): the modality sends a study over DICOM
(dcmtk's storescu to RadReview's receiver), it waits for its report, the dictation system sends
the report over MLLP (python-hl7's own MLLP client to RadReview's HL7 listener) and a worker
checks it. Also: a report that arrives before its images, a message that cannot be read, and a
final report after the preliminary one.

Marked ``pipeline``: scripts/test.sh runs it on SQLite and again on PostgreSQL + Redis.
"""
from __future__ import annotations

import pytest
from hl7.client import MLLPClient

from radreview.dictation.models import IncomingReport
from radreview.review import services as review
from radreview.review.models import Decision
from radreview.studies.models import Report, Study
from tests.support import dicom_factory as dicom
from tests.support.dicom_services import Receiver, run_dcmtk
from tests.support.hl7 import FINDINGS, Hl7Listener, fields, oru
from tests.support.process_groups import stop_all
from tests.support.worker import WorkerProcess, wait_for

pytestmark = [pytest.mark.pipeline, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def department(tmp_path):
    """The receiver, the HL7 listener and a worker, as scripts/run.sh starts them."""
    receiver = Receiver(tmp_path / "receiver")
    listener = Hl7Listener(tmp_path / "listener")
    worker = WorkerProcess()
    (tmp_path / "receiver").mkdir()
    (tmp_path / "listener").mkdir()
    try:
        receiver.start()
        listener.start()
        worker.start()
        yield receiver, listener
    finally:
        stop_all(worker, listener, receiver)


def send_study(receiver: Receiver, folder, accession: str, uid: str) -> Study:
    paths = []
    for number, view in enumerate(("PA", "LATERAL")):
        path = folder / f"{accession}-{view}.dcm"
        path.write_bytes(dicom.make_dicom(
            study_uid=uid, series_uid=f"{uid}.{number + 1}", sop_uid=f"{uid}.{number + 1}.1",
            view=view, seed=number, rows=128, cols=128, accession=accession,
            patient_id="P-100"))
        paths.append(str(path))
    done = run_dcmtk("storescu", "-aet", "MODALITY", "-aec", Receiver.AE_TITLE, "127.0.0.1",
                     str(receiver.port), *paths)
    assert done.returncode == 0, done.stderr
    return wait_for(lambda: Study.objects.filter(study_instance_uid=uid).first(), timeout=60,
                    message="the received study")


def send_hl7(listener: Hl7Listener, message: str) -> str:
    with MLLPClient("127.0.0.1", listener.port) as client:
        reply = client.send_message(message)
    return reply.strip(b"\x0b\x1c\r").decode()


def status_of(study: Study, wanted: str, timeout: float = 120) -> Study:
    def reached():
        study.refresh_from_db()
        return study.status == wanted
    wait_for(reached, timeout=timeout, message=f"study {study.pk} {wanted}")
    return study


def test_images_from_the_modality_wait_and_the_dictated_report_is_checked(
        department, tmp_path, radiologist_client):
    receiver, listener = department
    study = send_study(receiver, tmp_path, "ACC-100", "1.2.826.0.1.3680043.10.300.1")
    status_of(study, Study.Status.AWAITING_REPORT)
    assert "Awaiting report" in radiologist_client.get("/").content.decode()

    ack = send_hl7(listener, oru(accession="ACC-100", control_id="MSG-1"))
    assert fields(ack, "MSA")[1:3] == ["AA", "MSG-1"]
    assert f"study #{study.pk}" in fields(ack, "MSA")[3]
    status_of(study, Study.Status.READY)
    report = study.reports.get(kind=Report.Kind.UPLOADED)
    assert report.text.startswith(FINDINGS) and report.sentences.exists()
    assert study.jobs.filter(stage="combine", state="done").exists()


def test_a_report_before_its_images_is_attached_when_they_arrive(department, tmp_path):
    receiver, listener = department
    ack = send_hl7(listener, oru(accession="ACC-200", control_id="MSG-2"))
    assert fields(ack, "MSA")[1] == "AA" and "waits for its images" in fields(ack, "MSA")[3]
    assert IncomingReport.objects.get().state == IncomingReport.State.WAITING
    study = send_study(receiver, tmp_path, "ACC-200", "1.2.826.0.1.3680043.10.300.2")
    status_of(study, Study.Status.READY)
    assert study.reports.get(kind=Report.Kind.UPLOADED).text.startswith(FINDINGS)
    assert IncomingReport.objects.get().study_id == study.pk


def test_a_message_that_cannot_be_read_is_refused_with_the_reason(department):
    _, listener = department
    ack = send_hl7(listener, oru(status="X", control_id="MSG-3"))
    assert fields(ack, "MSA")[1:3] == ["AE", "MSG-3"]
    assert "Result status (OBR-25) X" in fields(ack, "ERR")[8]
    ack = send_hl7(listener, "not an HL7 message at all")
    assert fields(ack, "MSA")[1] == "AR"
    assert not IncomingReport.objects.exists() and not Report.objects.exists()


def test_a_final_report_after_the_preliminary_keeps_unchanged_decisions(
        department, tmp_path, radiologist):
    receiver, listener = department
    study = send_study(receiver, tmp_path, "ACC-400", "1.2.826.0.1.3680043.10.300.4")
    status_of(study, Study.Status.AWAITING_REPORT)
    assert fields(send_hl7(listener, oru(accession="ACC-400", status="P",
                                         control_id="MSG-P")), "MSA")[1] == "AA"
    status_of(study, Study.Status.READY)
    review.decide(study, radiologist, action="edit", sentence_index=0,
                  version=Study.objects.get(pk=study.pk).review_version,
                  text="FINDINGS: The heart is of normal size.")
    final = oru(accession="ACC-400", status="F", control_id="MSG-F",
                lines=(FINDINGS.replace("small left", "moderate left"),
                       "IMPRESSION: Moderate left pleural effusion."))
    assert fields(send_hl7(listener, final), "MSA")[1] == "AA"
    wait_for(lambda: Report.objects.filter(study=study, version=2).exists(), timeout=30,
             message="version 2")
    status_of(study, Study.Status.READY)
    current = study.reports.get(kind=Report.Kind.UPLOADED)
    assert (current.version, current.result_status) == (2, "final")
    assert [(d.sentence.index, d.after_text) for d in
            Decision.objects.filter(sentence__report=current)] == [
        (0, "FINDINGS: The heart is of normal size.")]
