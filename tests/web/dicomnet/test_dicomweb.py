"""RadReview's DICOMweb (QIDO-RS, WADO-RS) read with the dicomweb-client package, and
RadReview reading Orthanc's DICOMweb for "Import from PACS"."""
import io

import numpy as np
import pydicom
import pytest
from dicomweb_client.api import DICOMwebClient
from rest_framework.authtoken.models import Token

from radreview.studies.models import Study
from tests.support import dicom_factory as dicom
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def dicomweb(live_server, radiologist):
    token = Token.objects.create(user=radiologist).key
    return DICOMwebClient(url=f"{live_server.url}/api/dicomweb",
                          headers={"Authorization": f"Token {token}"})


def test_qido_finds_our_studies_by_patient_accession_and_date(dicomweb):
    make_dicom_review_study()
    found = dicomweb.search_for_studies(search_filters={"PatientID": "P-0042"})
    assert [pydicom.Dataset.from_json(s).StudyInstanceUID for s in found] == [rf.STUDY_UID]
    study = pydicom.Dataset.from_json(found[0])
    assert study.AccessionNumber == "ACC-7" and study.NumberOfStudyRelatedInstances == 2
    assert dicomweb.search_for_studies(search_filters={"AccessionNumber": "ACC-7"})
    assert dicomweb.search_for_studies(search_filters={"StudyDate": "20260301-20260331"})
    assert not dicomweb.search_for_studies(search_filters={"PatientID": "someone-else"})
    series = dicomweb.search_for_series(rf.STUDY_UID)
    assert [pydicom.Dataset.from_json(s).SeriesInstanceUID for s in series] == [rf.SERIES_UID]
    instances = dicomweb.search_for_instances(rf.STUDY_UID, rf.SERIES_UID)
    assert {pydicom.Dataset.from_json(i).SOPInstanceUID for i in instances} == set(rf.SOP_UIDS)


def test_wado_retrieves_instances_metadata_and_frames(dicomweb):
    study = make_dicom_review_study()
    retrieved = dicomweb.retrieve_study(rf.STUDY_UID)
    assert {ds.SOPInstanceUID for ds in retrieved} == set(rf.SOP_UIDS)
    image = study.images.order_by("position").first()
    stored = pydicom.dcmread(io.BytesIO(open(image.original.path, "rb").read()))
    metadata = dicomweb.retrieve_instance_metadata(rf.STUDY_UID, rf.SERIES_UID,
                                                   image.sop_instance_uid)
    assert pydicom.Dataset.from_json(metadata).Rows == stored.Rows
    frame = dicomweb.retrieve_instance_frames(rf.STUDY_UID, rf.SERIES_UID,
                                              image.sop_instance_uid, frame_numbers=[1])[0]
    pixels = np.frombuffer(frame, dtype="<u2").reshape(stored.Rows, stored.Columns)
    assert np.array_equal(pixels, stored.pixel_array)


def test_dicomweb_needs_a_login(live_server):
    anonymous = DICOMwebClient(url=f"{live_server.url}/api/dicomweb")
    with pytest.raises(Exception) as refused:
        anonymous.search_for_studies()
    assert "401" in str(refused.value) or "403" in str(refused.value)


def test_import_from_pacs_searches_orthanc_and_retrieves_a_study(orthanc, settings,
                                                                 radiologist_client):
    settings.PACS_DICOMWEB_URL = orthanc.dicomweb
    uid = "1.2.826.0.1.3680043.10.999.40"
    for number, view in enumerate(("PA", "LATERAL")):
        orthanc.upload(dicom.make_dicom(study_uid=uid, series_uid=f"{uid}.1",
                                        sop_uid=f"{uid}.1.{number}", view=view, seed=number,
                                        patient_id="PACS-77", accession="ACC-PACS"))
    page = radiologist_client.get("/studies/import/", {"patient_id": "PACS-77"}).content.decode()
    assert f'data-uid="{uid}"' in page and "ACC-PACS" in page
    response = radiologist_client.post("/studies/import/retrieve/",
                                       {"study_instance_uid": uid})
    study = Study.objects.get(study_instance_uid=uid)
    assert response.status_code == 302 and response["Location"] == f"/studies/{study.pk}/"
    assert study.source == Study.Source.PACS and study.images.count() == 2
    # Found again, the study is offered as the one already imported, not a second import.
    page = radiologist_client.get("/studies/import/", {"accession_number": "ACC-PACS"})
    assert f"Open study #{study.pk}" in page.content.decode()
    radiologist_client.post("/studies/import/retrieve/", {"study_instance_uid": uid})
    assert Study.objects.filter(study_instance_uid=uid).count() == 1


def test_import_says_when_the_pacs_cannot_be_reached(settings, radiologist_client):
    settings.PACS_DICOMWEB_URL = "http://127.0.0.1:9/dicom-web"
    page = radiologist_client.get("/studies/import/", {"patient_id": "X"}).content.decode()
    assert "The PACS could not be reached" in page
