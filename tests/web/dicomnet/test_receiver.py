"""The DICOM receiver as its own process, driven by dcmtk's echoscu / storescu and by Orthanc
forwarding a study (C-STORE routing)."""
import pytest
import requests

from radreview.dicomnet.models import InboundStudy
from radreview.studies.models import Image, Study
from tests.support import dicom_factory as dicom
from tests.support.dicom_services import Orthanc, Receiver, run_dcmtk
from tests.support.worker import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def two_views(folder, study_uid="1.2.826.0.1.3680043.10.999.1", **tags):
    paths = []
    for number, view in enumerate(("PA", "LATERAL")):
        data = dicom.make_dicom(study_uid=study_uid, series_uid=f"{study_uid}.{number + 1}",
                                sop_uid=f"{study_uid}.{number + 1}.1", view=view, seed=number,
                                **tags)
        path = folder / f"{view}.dcm"
        path.write_bytes(data)
        paths.append(str(path))
    return paths


def storescu(receiver, *paths, calling="MODALITY"):
    return run_dcmtk("storescu", "-d", "-aet", calling, "-aec", Receiver.AE_TITLE, "127.0.0.1",
                     str(receiver.port), *paths)


def study_for(uid):
    return wait_for(lambda: Study.objects.filter(study_instance_uid=uid).first(), timeout=30,
                    message=f"a study for {uid}")


def test_echoscu_gets_an_answer(receiver):
    done = run_dcmtk("echoscu", "-aet", "MODALITY", "-aec", Receiver.AE_TITLE, "127.0.0.1",
                     str(receiver.port))
    assert done.returncode == 0, done.stderr


def test_a_calling_ae_title_not_allowed_is_rejected_and_nothing_is_kept(receiver, tmp_path,
                                                                         shared_media):
    stored_before = sorted(shared_media.rglob("*"))
    echo = run_dcmtk("echoscu", "-aet", "INTRUDER", "-aec", Receiver.AE_TITLE, "127.0.0.1",
                     str(receiver.port))
    assert echo.returncode != 0
    assert "calling ae title not recognized" in (echo.stdout + echo.stderr).lower()

    uid = "1.2.826.0.1.3680043.10.999.4"
    done = storescu(receiver, *two_views(tmp_path, uid), calling="INTRUDER")
    answer = (done.stdout + done.stderr).lower()
    assert done.returncode != 0 and "association rejected" in answer
    assert "calling ae title not recognized" in answer
    assert not InboundStudy.objects.filter(study_instance_uid=uid).exists()
    assert not Study.objects.filter(study_instance_uid=uid).exists()
    assert sorted(shared_media.rglob("*")) == stored_before
    # The same files from an allowed sender are taken: it was the AE title that was refused.
    assert storescu(receiver, *two_views(tmp_path, uid)).returncode == 0
    assert study_for(uid).images.count() == 2


def test_storescu_sends_a_two_image_study_that_appears_in_the_worklist(receiver, tmp_path,
                                                                       radiologist_client):
    uid = "1.2.826.0.1.3680043.10.999.1"
    done = storescu(receiver, *two_views(tmp_path, uid, patient_name="Storescu^Sam",
                                         accession="ACC-SCU"))
    assert done.returncode == 0, done.stderr
    study = study_for(uid)
    assert study.source == Study.Source.DICOM and study.source_detail == "MODALITY"
    assert sorted(study.images.values_list("view", flat=True)) == ["LATERAL", "PA"]
    assert study.patient_name == "Storescu^Sam" and study.jobs.exists()
    rows = radiologist_client.get("/", HTTP_HX_REQUEST="true").content.decode()
    assert f'data-study="{study.pk}"' in rows and "Storescu, Sam" in rows and "ACC-SCU" in rows

    # The same instances again (a retry, a second routing): no second study, nothing kept.
    again = storescu(receiver, *two_views(tmp_path, uid, patient_name="Storescu^Sam"))
    assert again.returncode == 0, again.stderr
    assert Study.objects.filter(study_instance_uid=uid).count() == 1
    assert not InboundStudy.objects.filter(state=InboundStudy.State.RECEIVING).exists()


def test_a_file_that_is_no_image_is_refused_to_its_sender_and_nothing_is_kept(receiver,
                                                                              tmp_path):
    report = tmp_path / "report.dcm"
    report.write_bytes(dicom.make_sr_dicom())
    done = storescu(receiver, str(report))
    assert done.returncode != 0 and "no image" in (done.stderr + done.stdout).lower()
    assert not InboundStudy.objects.exists() and not Image.objects.exists()


def test_a_new_instance_of_a_study_already_made_is_refused_naming_it(receiver, tmp_path):
    uid = "1.2.826.0.1.3680043.10.999.2"
    first, second = two_views(tmp_path, uid)
    assert storescu(receiver, first).returncode == 0
    study = study_for(uid)
    done = storescu(receiver, second)
    assert f"RadReview study #{study.pk}" in done.stderr + done.stdout
    assert study.images.count() == 1 and Study.objects.count() == 1


def test_orthanc_forwards_a_study_to_radreview(orthanc, tmp_path):
    uid = "1.2.826.0.1.3680043.10.999.3"
    ids = [orthanc.upload(open(path, "rb").read())["ParentStudy"]
           for path in two_views(tmp_path, uid, patient_name="Routed^Rita")]
    answer = requests.post(f"{orthanc.url}/modalities/radreview/store",
                           json={"Resources": [ids[0]], "Synchronous": True}, timeout=60)
    assert answer.ok, answer.text
    study = study_for(uid)
    assert study.images.count() == 2 and study.source_detail == Orthanc.AE_TITLE
