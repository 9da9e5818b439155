"""On sign-off the DICOM SR goes to the configured PACS through a real worker: to Orthanc, and
to dcmtk's storescp that is down at first — the send is recorded, retried, never lost."""
import pydicom
import pytest

from radreview.audit.models import AuditEvent
from radreview.dicomnet.models import SrDelivery
from radreview.review import services
from radreview.studies.models import Study
from tests.factories import PASSWORD
from tests.support.dicom_services import StoreScp
from tests.support.dicom_study import make_dicom_review_study
from tests.support.sockets import free_port
from tests.support.worker import wait_for
from tests.web.review import factories as rf

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.pipeline]


@pytest.fixture
def quick_retries(monkeypatch):
    """The worker started after this retries a failed send after one second."""
    monkeypatch.setenv("RADREVIEW_SR_RETRY_SECONDS", "1")


def sign(study, user):
    for index in rf.FLAGGED:
        services.decide(study, user, action="reject", sentence_index=index,
                        version=Study.objects.get(pk=study.pk).review_version)
    return services.sign(study, user, version=Study.objects.get(pk=study.pk).review_version,
                         password=PASSWORD, attested=True).signoff


def delivered(delivery):
    delivery.refresh_from_db()
    return delivery.state == SrDelivery.State.SENT


def test_signed_report_goes_to_orthanc_as_sr(orthanc, settings, celery_worker, radiologist):
    settings.PACS_STORE = {"ae_title": orthanc.AE_TITLE, "host": "127.0.0.1",
                           "port": orthanc.dicom_port}
    signoff = sign(make_dicom_review_study(), radiologist)
    delivery = SrDelivery.objects.get(signoff=signoff)
    wait_for(lambda: delivered(delivery), timeout=60, message="the SR to reach Orthanc",
             details=celery_worker.log)
    tags = [orthanc.instance_tags(i["ID"]) for i in orthanc.instances()]
    sr = next(t for t in tags if t["SOPInstanceUID"] == delivery.sop_instance_uid)
    assert sr["Modality"] == "SR" and sr["StudyInstanceUID"] == rf.STUDY_UID
    assert sr["VerifyingObserverSequence"][0]["VerifyingObserverName"].startswith(
        radiologist.last_name or radiologist.username)


def test_sr_to_a_destination_that_is_down_is_retried_until_it_arrives(
        quick_retries, settings, celery_worker, radiologist, tmp_path):
    port = free_port()
    settings.PACS_STORE = {"ae_title": StoreScp.AE_TITLE, "host": "127.0.0.1", "port": port}
    signoff = sign(make_dicom_review_study(), radiologist)
    delivery = SrDelivery.objects.get(signoff=signoff)

    def failed_once():
        delivery.refresh_from_db()
        return delivery.attempts >= 1 and delivery.state == SrDelivery.State.PENDING
    wait_for(failed_once, timeout=60, message="a failed first attempt", details=celery_worker.log)
    assert "could not be reached" in delivery.last_error
    assert AuditEvent.objects.filter(action="sr_send_failed", study=signoff.study).exists()

    scp = StoreScp(tmp_path, port=port).start()
    try:
        wait_for(lambda: delivered(delivery), timeout=60, message="the retried SR",
                 details=celery_worker.log)
        received = [pydicom.dcmread(path) for path in scp.files()]
    finally:
        scp.stop()
    assert [ds.SOPInstanceUID for ds in received] == [delivery.sop_instance_uid]
    assert "Radiologist" in str(received[0].ContentSequence[-1].TextValue)
    assert AuditEvent.objects.filter(action="sr_sent", study=signoff.study).exists()
