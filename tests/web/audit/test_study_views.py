"""Every view of a study is in the audit trail: who opened which study, when, and how. A view
is recorded once per user and study per window (STUDY_VIEW_AUDIT_SECONDS), so a client polling
a study's status writes one row, not one per poll; the first view in every window is recorded,
whichever way it came: the study page, a signed version, the API, DICOMweb or an export."""
import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from radreview.audit.models import AuditEvent
from tests import factories
from tests.support.dicom_study import make_dicom_review_study
from tests.web.review import factories as rf
from tests.web.review.test_exports import signed

pytestmark = pytest.mark.django_db


def views_of(study):
    return list(AuditEvent.objects.filter(action="study_viewed", study=study).order_by("id"))


@pytest.fixture
def clock(monkeypatch):
    """The clock that the audit trail's times and its window read, stopped: ``clock(seconds)``
    sets it that long after the test began."""
    start = timezone.now()

    def at(seconds: float) -> None:
        monkeypatch.setattr(timezone, "now", lambda: start + dt.timedelta(seconds=seconds))
    return at


def test_opening_the_study_page_is_audited(radiologist_client, radiologist):
    study = rf.make_review_study()
    radiologist_client.get(f"/studies/{study.pk}/")
    [event] = views_of(study)
    assert event.actor == radiologist and event.detail == {"via": "page"} and event.created_at


def test_reading_the_study_through_the_api_is_audited(api_client, radiologist):
    study = rf.make_review_study()
    api_client.get(f"/api/studies/{study.pk}/")
    assert [(e.actor, e.detail["via"]) for e in views_of(study)] == [(radiologist, "api")]


def test_a_client_polling_a_study_writes_one_view_per_window(api_client, radiologist_client,
                                                              settings, clock):
    assert settings.STUDY_VIEW_AUDIT_SECONDS == settings.SESSION_IDLE_SECONDS == 15 * 60
    study = rf.make_review_study()
    clock(0)
    for _ in range(10):
        assert api_client.get(f"/api/studies/{study.pk}/").status_code == 200
        assert api_client.get(f"/api/studies/{study.pk}/review/").status_code == 200
    radiologist_client.get(f"/studies/{study.pk}/")  # the same user, another way in
    assert [e.detail["via"] for e in views_of(study)] == ["api"]
    clock(15 * 60 - 1)
    api_client.get(f"/api/studies/{study.pk}/")
    assert len(views_of(study)) == 1
    clock(15 * 60 + 1)  # the window of the first view is over: the next view opens another
    api_client.get(f"/api/studies/{study.pk}/")
    api_client.get(f"/api/studies/{study.pk}/")
    assert [e.detail["via"] for e in views_of(study)] == ["api", "api"]


def test_every_user_and_every_study_has_its_own_window(api_client, radiologist_client,
                                                       radiologist):
    study, other = rf.make_review_study(), rf.make_review_study()
    api_client.get(f"/api/studies/{study.pk}/")
    api_client.get(f"/api/studies/{other.pk}/")
    colleague = factories.make_user()
    browser = Client()
    browser.force_login(colleague)
    browser.get(f"/studies/{study.pk}/")
    assert [(e.actor, e.detail["via"]) for e in views_of(study)] == [(radiologist, "api"),
                                                                      (colleague, "page")]
    assert len(views_of(other)) == 1


def test_the_window_is_a_setting_and_zero_records_every_view(api_client, settings):
    settings.STUDY_VIEW_AUDIT_SECONDS = 0
    study = rf.make_review_study()
    for _ in range(3):
        api_client.get(f"/api/studies/{study.pk}/")
    assert len(views_of(study)) == 3


def test_dicomweb_reads_are_views_of_the_study(api_client, radiologist):
    study = make_dicom_review_study()
    root = f"/api/dicomweb/studies/{rf.STUDY_UID}"
    image = study.images.order_by("position").first()
    instance = f"{root}/series/{rf.SERIES_UID}/instances/{image.sop_instance_uid}"
    for url in (f"{root}/metadata", f"{root}/series", f"{instance}/frames/1", root):
        assert api_client.get(url).status_code == 200, url
    assert [(e.actor, e.detail) for e in views_of(study)] == [(radiologist, {"via": "dicomweb"})]


def test_the_study_search_is_not_a_view(api_client):
    study = make_dicom_review_study()
    assert api_client.get("/api/dicomweb/studies", {"PatientID": "P-0042"}).status_code == 200
    assert views_of(study) == []


def test_an_export_is_a_view_of_the_study(radiologist, radiologist_client):
    study, signoff = signed(radiologist)
    url = f"/studies/{study.pk}/signed/{signoff.version}/export/txt/"
    assert radiologist_client.get(url).status_code == 200
    assert radiologist_client.get(url).status_code == 200
    assert [e.detail for e in views_of(study)] == [
        {"via": "export", "signed_version": signoff.version}]
    exported = AuditEvent.objects.filter(study=study, action="report_exported")
    assert exported.count() == 2  # every export is recorded as an export


def test_the_pages_own_polling_is_not_a_view(radiologist_client):
    study = rf.make_review_study()
    radiologist_client.get(f"/studies/{study.pk}/review/poll/", {"version": 0},
                           HTTP_HX_REQUEST="true")
    radiologist_client.get(f"/studies/{study.pk}/jobs/", HTTP_HX_REQUEST="true")
    assert views_of(study) == []


def test_views_show_on_the_studys_trail(admin_client_, site_admin):
    study = rf.make_review_study()
    admin_client_.get(f"/studies/{study.pk}/")
    trail = admin_client_.get(f"/studies/{study.pk}/audit/", {"action": "study_viewed"})
    assert trail.status_code == 200 and "study_viewed" in trail.content.decode()
    assert views_of(study)[0].actor == site_admin
