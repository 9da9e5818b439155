"""Every view of a study is in the audit trail: who opened which study, when, and how."""
import pytest

from radreview.audit.models import AuditEvent
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def views_of(study):
    return list(AuditEvent.objects.filter(action="study_viewed", study=study).order_by("id"))


def test_opening_the_study_page_is_audited(radiologist_client, radiologist):
    study = rf.make_review_study()
    radiologist_client.get(f"/studies/{study.pk}/")
    [event] = views_of(study)
    assert event.actor == radiologist and event.detail == {"via": "page"} and event.created_at


def test_reading_the_study_through_the_api_is_audited(api_client, radiologist):
    study = rf.make_review_study()
    api_client.get(f"/api/studies/{study.pk}/")
    api_client.get(f"/api/studies/{study.pk}/review/")
    assert [(e.actor, e.detail["via"]) for e in views_of(study)] == [(radiologist, "api")] * 2


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
