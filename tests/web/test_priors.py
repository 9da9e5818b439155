"""The same patient's earlier studies in RadReview: listed in the study's header, the most recent
prior's signed report shown beside the current one, and a prior known to the checks."""
from __future__ import annotations

from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.review import services as review
from radreview.review.models import Detection
from radreview.studies.models import Study
from radreview.studies.services.upload import UploadRequest, create_studies
from tests.factories import PASSWORD
from tests.support import dicom_factory as dicom
from tests.support.inline_pipeline import run_pipeline
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def signed_study(user, **fields) -> Study:
    study = rf.make_review_study(user, **fields)
    for index in rf.FLAGGED:
        review.decide(study, user, action="reject", sentence_index=index,
                      version=Study.objects.get(pk=study.pk).review_version)
    review.sign(study, user, version=Study.objects.get(pk=study.pk).review_version,
                password=PASSWORD, attested=True)
    return study


def test_the_header_lists_the_patients_earlier_studies_and_the_prior_report(
        radiologist, radiologist_client):
    older = signed_study(radiologist, patient_id="P-1", study_date=date(2025, 1, 5))
    prior = signed_study(radiologist, patient_id="P-1", study_date=date(2026, 2, 1))
    signed_study(radiologist, patient_id="P-2", study_date=date(2026, 1, 1))  # someone else
    current = rf.make_review_study(radiologist, patient_id="P-1", study_date=date(2026, 3, 4))
    page = radiologist_client.get(f"/studies/{current.pk}/")
    assert [p.pk for p in page.context["priors"]] == [prior.pk, older.pk]
    html = page.content.decode()
    assert f'href="/studies/{prior.pk}/">2026-02-01 · study #{prior.pk} · signed' in html
    assert 'id="prior-report"' in html
    assert page.context["prior"].study.pk == prior.pk
    assert prior.signoffs.get().report.text.splitlines()[0] in html
    # A later study is not a prior of an earlier one.
    assert [p.pk for p in radiologist_client.get(f"/studies/{older.pk}/").context["priors"]] \
        == []


def test_a_study_with_no_earlier_one_says_so(radiologist, radiologist_client):
    study = rf.make_review_study(radiologist, patient_id="P-9", study_date=date(2026, 3, 4))
    html = radiologist_client.get(f"/studies/{study.pk}/").content.decode()
    assert "none in RadReview" in html and 'id="prior-report"' not in html


def test_an_upload_of_a_patient_with_an_earlier_study_has_a_prior(radiologist):
    rf.make_review_study(radiologist, patient_id="P-100", study_date=date(2026, 1, 2))
    files = [SimpleUploadedFile("pa.dcm", dicom.make_dicom(
        study_uid="1.2.3.909", rows=64, cols=64, patient_id="P-100", study_date="20260304"))]
    (study,) = create_studies(user=radiologist, request=UploadRequest(files=files))
    assert study.has_prior
    files = [SimpleUploadedFile("pa.dcm", dicom.make_dicom(
        study_uid="1.2.3.910", rows=64, cols=64, patient_id="P-NEW"))]
    (first,) = create_studies(user=radiologist, request=UploadRequest(files=files))
    assert not first.has_prior


CURRENT = ("FINDINGS: The heart size is normal. There is a new small left pleural effusion.\n"
           "IMPRESSION: New small left pleural effusion.")


def test_the_audit_checks_the_reports_comparison_claims_against_the_prior_report(
        radiologist, radiologist_client):
    """The prior's signed report says there is a small left pleural effusion; the new report
    calls it new. The prior report check flags it, quoting the prior sentence, and the page
    links the quote to the prior report shown beside it."""
    prior = signed_study(radiologist, patient_id="P-7", study_date=date(2026, 2, 1))
    (study,) = create_studies(user=radiologist, request=UploadRequest(
        report_text=CURRENT, patient_id="P-7"))
    assert study.has_prior
    run_pipeline(study)
    found = Detection.objects.filter(report__study=study, detector="prior")
    new_claim = next(d for d in found if "new small left pleural effusion" in
                     d.report.sentences.get(index=d.sentence_index).text.lower())
    assert new_claim.evidence["prior_sentence"] == "There is a small left pleural effusion."
    page = radiologist_client.get(f"/studies/{study.pk}/")
    assert page.context["prior"].study.pk == prior.pk
    html = page.content.decode()
    assert 'id="prior-report"' in html
    assert ('<a href="#prior-report" class="prior-link"><q>There is a small left pleural '
            'effusion.</q></a>') in html
