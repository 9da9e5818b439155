"""The audit export checks its filters before streaming and never ends as a silently cut file."""
import csv
import io

import pytest

from radreview.audit import views
from radreview.audit.services import record_event

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query, reason", [
    ({"study": "99999999999999999999"}, "study must be the id"),
    ({"user": "abc"}, "user must be the id"),
    ({"from": "2024-02-30"}, "from must be a date"),
])
def test_a_bad_filter_is_refused_before_anything_streams(admin_client_, query, reason):
    response = admin_client_.get("/audit/export.csv", query)
    assert response.status_code == 400 and not response.streaming
    assert reason in response.content.decode()


def test_a_complete_export_states_its_row_count(admin_client_, site_admin):
    for number in range(3):
        record_event("note", actor=site_admin, detail={"n": number})
    response = admin_client_.get("/audit/export.csv", {"action": "note"})
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert response["X-Export-Rows"] == "3" and len(rows) == 1 + 3


def test_an_error_midway_ends_the_file_with_a_row_that_says_so(admin_client_, site_admin,
                                                              monkeypatch):
    for number in range(3):
        record_event("note", actor=site_admin, detail={"n": number})
    calls = {"n": 0}
    real_cell = views._cell

    def failing_cell(value):
        calls["n"] += 1
        if calls["n"] > 7:  # the second row
            raise RuntimeError("database went away")
        return real_cell(value)

    monkeypatch.setattr(views, "_cell", failing_cell)
    response = admin_client_.get("/audit/export.csv", {"action": "note"})
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[-1] == ["EXPORT INCOMPLETE: an error stopped it after 1 of 3 rows; export again."]
