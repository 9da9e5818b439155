"""Audit trail pages: per study for reviewers, site-wide and CSV for admins only."""
import csv
import io

import pytest
from django.utils import timezone

from radreview.audit.models import AuditEvent
from radreview.audit.services import record_event
from radreview.review import services
from radreview.studies.models import Study
from tests import factories
from tests.factories import PASSWORD
from tests.web.review import factories as rf

pytestmark = pytest.mark.django_db


def reviewed_study(user):
    study = rf.make_review_study()
    record_event(
        "study_uploaded", actor=study.uploaded_by, study=study, detail={"images": 2, "report": True}
    )
    record_event("stage_done", study=study, detail={"stage": "parse_report", "attempt": 1})
    for index in rf.FLAGGED:
        services.decide(study, user, action="reject", sentence_index=index,
                        version=Study.objects.get(pk=study.pk).review_version)
    signoff = services.sign(study, user, version=Study.objects.get(pk=study.pk).review_version,
                            password=PASSWORD, attested=True).signoff
    services.export(signoff, "sr", user)
    return study


def actions_on(html):
    import re

    return re.findall(r'<tr data-action="([\w_]+)">', html)


def test_a_study_trail_shows_upload_pipeline_decisions_signoff_and_export(
    radiologist_client, radiologist
):
    study = reviewed_study(radiologist)
    other = rf.make_review_study()
    record_event("stage_done", study=other, detail={"stage": "ingest"})
    response = radiologist_client.get(f"/studies/{study.pk}/audit/")
    assert response.status_code == 200
    html = response.content.decode()
    # The export is also the radiologist's view of the study (its first in the window).
    assert actions_on(html) == ["study_viewed", "report_exported", "report_signed"] + [
        "review_decision"] * 4 + ["stage_done", "study_uploaded"]
    assert "Export CSV" not in html  # admins only


def test_study_trail_filters_by_action_and_user(radiologist_client, radiologist):
    study = reviewed_study(radiologist)
    html = radiologist_client.get(
        f"/studies/{study.pk}/audit/", {"action": "review_decision"}
    ).content.decode()
    assert actions_on(html) == ["review_decision"] * 4
    html = radiologist_client.get(
        f"/studies/{study.pk}/audit/", {"user": study.uploaded_by.pk}
    ).content.decode()
    assert actions_on(html) == ["study_uploaded"]


def test_radiologists_cannot_reach_the_site_trail_or_its_export(radiologist_client):
    assert radiologist_client.get("/audit/").status_code == 403
    assert radiologist_client.get("/audit/export.csv").status_code == 403
    assert not AuditEvent.objects.filter(action="audit_exported").exists()


def test_admins_filter_the_site_trail_by_study_and_dates(admin_client_, radiologist):
    study = reviewed_study(radiologist)
    old = record_event("calibration_activated", actor=radiologist)
    AuditEvent.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timezone.timedelta(days=10)
    )
    html = admin_client_.get("/audit/").content.decode()
    assert "calibration_activated" in actions_on(html) and "review_decision" in actions_on(html)
    html = admin_client_.get(
        "/audit/", {"study": study.pk, "action": "report_signed"}
    ).content.decode()
    assert actions_on(html) == ["report_signed"]
    today = timezone.localdate()
    html = admin_client_.get("/audit/", {"from": today.isoformat()}).content.decode()
    assert "calibration_activated" not in actions_on(html)
    ten_days_ago = (today - timezone.timedelta(days=10)).isoformat()
    html = admin_client_.get("/audit/", {"from": ten_days_ago, "to": ten_days_ago}).content.decode()
    assert actions_on(html) == ["calibration_activated"]
    assert admin_client_.get("/audit/", {"from": "not-a-date", "study": "x"}).status_code == 200


def test_admins_export_the_trail_as_streamed_csv(admin_client_, radiologist, site_admin):
    study = reviewed_study(radiologist)
    record_event("note", actor=radiologist, study=study, detail={"text": "=HYPERLINK(\"http://x\")"})
    response = admin_client_.get("/audit/export.csv", {"study": study.pk})
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("text/csv")
    table = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert table[0] == ["time", "action", "actor", "study", "detail"]
    assert [row[1] for row in table[1:]].count("review_decision") == 4
    assert all(row[3] == str(study.pk) for row in table[1:])
    note = next(row for row in table if row[1] == "note")
    assert note[4].startswith("{")  # JSON detail; never a formula
    assert AuditEvent.objects.get(action="audit_exported").actor == site_admin


def test_csv_cells_that_look_like_formulas_are_defused(admin_client_):
    user = factories.make_user(username="=cmd")
    record_event("login", actor=user)
    table = list(
        csv.reader(
            io.StringIO(b"".join(admin_client_.get("/audit/export.csv").streaming_content).decode())
        )
    )
    assert any(row[2] == "'=cmd" for row in table)
