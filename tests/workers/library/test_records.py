"""JSONL library files: records, and errors that name the line."""
import pytest

from workers.library import read_jsonl_reports
from workers.library.records import RecordError


def test_records_carry_their_sections(tmp_path):
    path = tmp_path / "ref.jsonl"
    path.write_text('{"id": "a", "report": "FINDINGS: Clear lungs.\\nIMPRESSION: Normal."}\n\n'
                    '{"id": 7, "report": "No pneumothorax."}\n')
    records = list(read_jsonl_reports(path))
    assert [(r.external_id, r.findings, r.impression) for r in records] == [
        ("a", "Clear lungs.", "Normal."), ("7", "No pneumothorax.", "")]


@pytest.mark.parametrize("line, message", [
    ("{not json", "bad JSON"),
    ('{"id": "a"}', 'a string "report"'),
])
def test_a_bad_line_is_named(tmp_path, line, message):
    path = tmp_path / "ref.jsonl"
    path.write_text('{"id": "ok", "report": "Normal."}\n' + line + "\n")
    with pytest.raises(RecordError, match=rf"ref.jsonl:2: .*{message}"):
        list(read_jsonl_reports(path))


def test_an_id_twice_is_refused(tmp_path):
    path = tmp_path / "ref.jsonl"
    path.write_text('{"id": "a", "report": "x"}\n{"id": "a", "report": "y"}\n')
    with pytest.raises(RecordError, match="appears twice"):
        list(read_jsonl_reports(path))
