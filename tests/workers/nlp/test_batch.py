"""Batch labeling of JSONL reports."""
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from workers.nlp.batch import BatchInputError, compose_report, label_file, label_stream
from workers.nlp.labels import LABELS

ROOT = Path(__file__).resolve().parents[3]


def run(lines, **kwargs):
    out = io.StringIO()
    count = label_stream(lines, out, progress=None, **kwargs)
    return count, [json.loads(line) for line in out.getvalue().splitlines()]


def test_output_format():
    count, rows = run([json.dumps({"id": "a", "report": "FINDINGS: Small left effusion. "
                                   "No pneumothorax.", "other": 1})])
    assert count == 1
    row = rows[0]
    assert set(row) == {"id", "labels", "findings", "image_sentences"}
    assert row["image_sentences"] == 2
    assert list(row["labels"]) == list(LABELS)
    assert row["labels"]["Pleural Effusion"] == 1 and row["labels"]["Pneumothorax"] == 0
    assert row["findings"][0] == {"sentence": 0, "observation": "pleural effusion",
                                  "status": "present", "laterality": "left",
                                  "severity": "small", "location": None}


def test_a_body_after_a_header_paragraph_is_read_as_findings():
    report = ("FINAL REPORT\n REASON FOR EXAM: Shortness of breath.\n \n There is a large right "
              "pleural effusion. A right chest tube is in place. Mild pulmonary edema.")
    _, [row] = run([json.dumps({"id": "m", "report": report})])
    labels = row["labels"]
    assert (labels["Pleural Effusion"], labels["Support Devices"], labels["Edema"]) == (1, 1, 1)
    assert labels["No Finding"] == 0 and row["image_sentences"] == 3


def test_a_report_with_nothing_read_is_never_labelled_normal():
    report = "FINAL REPORT\nINDICATION: Evaluate for pneumonia.\n\nCOMPARISON: ___.\n\nTECHNI"
    _, [row] = run([json.dumps({"id": "u", "report": report})])
    assert row["image_sentences"] == 0
    assert row["labels"]["No Finding"] is None
    assert row["labels"]["Pneumonia"] is None  # the indication's question is no finding


def test_report_composed_from_sections_when_missing():
    record = {"id": "b", "findings": "Cardiomegaly.", "impression": "No acute disease."}
    assert compose_report(record) == "FINDINGS: Cardiomegaly.\nIMPRESSION: No acute disease."
    _, rows = run([json.dumps(record)])
    assert rows[0]["labels"]["Cardiomegaly"] == 1


def test_blank_lines_are_skipped():
    count, _ = run(["", json.dumps({"id": "c", "report": "Normal."}), "  "])
    assert count == 1


def test_bad_json_names_the_line():
    with pytest.raises(BatchInputError, match=r"in.jsonl:2: bad JSON"):
        run([json.dumps({"id": "a", "report": "x"}), "{not json"], source="in.jsonl")


def test_non_object_line_is_an_error():
    with pytest.raises(BatchInputError, match=r":1: expected a JSON object"):
        run(["[1, 2]"])


def test_progress_on_stderr_for_long_inputs(monkeypatch):
    import workers.nlp.batch as batch

    monkeypatch.setattr(batch, "PROGRESS_EVERY", 2)
    progress = io.StringIO()
    lines = [json.dumps({"id": str(i), "report": "Normal."}) for i in range(5)]
    label_stream(lines, io.StringIO(), progress=progress)
    assert "labelled 2 reports" in progress.getvalue()
    assert "labelled 4 reports" in progress.getvalue()


def test_label_file_leaves_no_output_on_error(tmp_path):
    src = tmp_path / "in.jsonl"
    dst = tmp_path / "out.jsonl"
    src.write_text('{"id": "a", "report": "Normal."}\nnot json\n')
    with pytest.raises(BatchInputError):
        label_file(str(src), str(dst), progress=None)
    assert not dst.exists()
    assert list(tmp_path.iterdir()) == [src]


def test_command_line(tmp_path):
    src = tmp_path / "in.jsonl"
    dst = tmp_path / "out.jsonl"
    src.write_text('{"id": "a", "report": "Right pneumothorax."}\n')
    result = subprocess.run([sys.executable, "-m", "workers.nlp.batch", "--input", str(src),
                             "--output", str(dst)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert json.loads(dst.read_text())["labels"]["Pneumothorax"] == 1
    src.write_text("oops\n")
    result = subprocess.run([sys.executable, "-m", "workers.nlp.batch", "--input", str(src),
                             "--output", str(dst)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 2 and "in.jsonl:1: bad JSON" in result.stderr
