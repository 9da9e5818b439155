"""manage.py audit_reports on a small file: the site library or a reference file."""
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from radreview.library import text_library
from tests.workers.library.fakes import REFERENCE_REPORTS
from workers.library import LibraryReport

SOUND = REFERENCE_REPORTS[3][1]
BROKEN = SOUND.replace("No pleural effusion or pneumothorax.", "No pleural effusion or cirrhosis.")


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.django_db
def test_audit_with_a_reference_file(embedder, tmp_path, settings):
    settings.DATA_DIR = tmp_path
    source = write(tmp_path / "in.jsonl", [{"id": "ref-4", "report": BROKEN},
                                           {"id": "fine", "report": SOUND}])
    reference = write(tmp_path / "ref.jsonl",
                      [{"id": i, "report": r} for i, r in REFERENCE_REPORTS])
    out = tmp_path / "out.jsonl"
    errors = io.StringIO()
    call_command("audit_reports", "--input", str(source), "--output", str(out),
                 "--reference", str(reference), stderr=errors)
    broken, fine = [json.loads(line) for line in out.read_text().splitlines()]
    assert broken["has_error"] and broken["error_sentence"] == "No pleural effusion or cirrhosis."
    assert broken["corrected_report"] == SOUND
    assert not fine["has_error"] and fine["corrected_report"] is None
    assert "Audited 2 reports" in errors.getvalue()
    assert "library counts (counted)" in errors.getvalue()
    assert list((tmp_path / "cache" / "library-counts").glob("*.counts.pickle"))
    # the next run reads the library's counts back and writes the same lines
    again, errors = tmp_path / "again.jsonl", io.StringIO()
    call_command("audit_reports", "--input", str(source), "--output", str(again),
                 "--reference", str(reference), stderr=errors)
    assert "library counts (read back)" in errors.getvalue()
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.django_db(transaction=True)
def test_audit_with_the_site_library(embedder, tmp_path, django_capture_on_commit_callbacks):
    reports = [LibraryReport(i, r) for i, r in REFERENCE_REPORTS]
    plan = text_library.ImportPlan("jsonl", reports, 0)
    with django_capture_on_commit_callbacks(execute=True):
        text_library.store_import(plan, text_library.embed_plan(plan))
    source = write(tmp_path / "in.jsonl", [{"id": 1, "report": BROKEN}])
    out = tmp_path / "out.jsonl"
    call_command("audit_reports", "--input", str(source), "--output", str(out), verbosity=0)
    [line] = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["has_error"] and line["corrected_report"] == SOUND


@pytest.mark.django_db
def test_a_bad_input_line_is_named(embedder, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"id": 1, "report": "Normal."}\nnot json\n')
    with pytest.raises(CommandError, match=r"in.jsonl:2: bad JSON"):
        call_command("audit_reports", "--input", str(source), "--output",
                     str(tmp_path / "out.jsonl"), verbosity=0)
    assert not (tmp_path / "out.jsonl").exists()
