"""A study whose original file is gone: every place that serves or needs it answers with the
reason (410 where the file itself was asked for), never a 500; the study page says so."""
from __future__ import annotations

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from radreview.jobs import runner
from radreview.jobs.models import Job
from radreview.studies.models import Image, Study
from radreview.studies.storage import MISSING_ORIGINAL
from tests.support import media
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf
from tests.web.review.test_exports import signed

pytestmark = pytest.mark.django_db

BASE = f"/api/dicomweb/studies/{rf.STUDY_UID}/series/{rf.SERIES_UID}/instances"


def remove_original(image: Image) -> None:
    media.remove(image.original.name)


@pytest.fixture
def study_missing_its_pa(radiologist):
    study = make_dicom_review_study(uploaded_by=radiologist)
    pa = study.images.get(view=Image.View.PA)
    remove_original(pa)
    return study, pa


@pytest.fixture
def api(radiologist) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {AuthToken.objects.create(radiologist)[1]}")
    return client


def test_dicomweb_answers_410_with_the_reason(api, study_missing_its_pa):
    _, pa = study_missing_its_pa
    for url in (f"{BASE}/{pa.sop_instance_uid}/metadata",
                f"{BASE}/{pa.sop_instance_uid}/frames/1",
                f"{BASE}/{pa.sop_instance_uid}",
                f"/api/dicomweb/studies/{rf.STUDY_UID}"):
        answer = api.get(url, HTTP_ACCEPT="*/*")
        assert answer.status_code == 410, (url, answer.status_code)
        assert answer.json()["detail"] == MISSING_ORIGINAL
    lateral = study_missing_its_pa[0].images.get(view=Image.View.LATERAL)
    assert api.get(f"{BASE}/{lateral.sop_instance_uid}/metadata").status_code == 200


def test_renders_and_previews_answer_410_with_the_reason(radiologist_client,
                                                         study_missing_its_pa):
    study, pa = study_missing_its_pa
    render = radiologist_client.get(f"/images/studies/{study.pk}/{pa.pk}/default.png")
    assert render.status_code == 410 and render.content.decode() == MISSING_ORIGINAL
    media.remove(pa.preview)
    preview = radiologist_client.get(f"/studies/{study.pk}/images/{pa.pk}/preview.png")
    assert preview.status_code == 410 and preview.content.decode() == MISSING_ORIGINAL


def test_the_study_page_says_which_image_is_missing_and_shows_the_rest(radiologist_client,
                                                                      study_missing_its_pa):
    study, pa = study_missing_its_pa
    page = radiologist_client.get(f"/studies/{study.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'id="missing-images"' in html and "The image file of this study is missing" in html
    assert "PA view: 1 of 2 images" in html
    viewer = page.context["viewer_images"]
    assert [item["sop"] for item in viewer] == [
        study.images.get(view=Image.View.LATERAL).sop_instance_uid]


def test_a_complete_study_page_has_no_such_notice(radiologist_client, radiologist):
    study = make_dicom_review_study(uploaded_by=radiologist)
    html = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert 'id="missing-images"' not in html


def test_exports_of_the_signed_report_do_not_need_the_image_files(radiologist_client,
                                                                  radiologist):
    """The report's exports are made from the database (the SR references the instances by
    their UIDs), so they still work; none answers 500."""
    study, signoff = signed(radiologist)
    for image in study.images.all():
        remove_original(image)
    for fmt in ("txt", "fhir", "sr"):
        answer = radiologist_client.get(
            f"/studies/{study.pk}/signed/{signoff.version}/export/{fmt}/")
        assert answer.status_code == 200, (fmt, answer.status_code)


def test_a_stage_that_needs_the_file_fails_with_the_reason(radiologist):
    study = rf.make_review_study(radiologist)
    remove_original(study.images.first())
    job = Job.objects.get(study=study, stage="ingest")
    Job.objects.filter(pk=job.pk).update(state=Job.State.QUEUED)  # the stage run again
    runner.run_job(job.pk)
    job.refresh_from_db()
    assert job.state == Job.State.FAILED and job.error == MISSING_ORIGINAL
    assert Study.objects.get(pk=study.pk).status == Study.Status.FAILED
