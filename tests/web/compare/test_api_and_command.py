"""POST /api/compare/ compares one pair for any signed-in user; manage.py compare_reports a
file of them, with a progress bar and a summary table."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

REFERENCE = "FINDINGS: No pneumothorax. Small left pleural effusion."
CANDIDATE = "FINDINGS: Pneumothorax. Small left pleural effusion."


def test_the_api_answers_the_errors_of_one_pair(api_client):
    answer = api_client.post("/api/compare/", {"candidate": CANDIDATE, "reference": REFERENCE},
                             format="json")
    assert answer.status_code == 200
    assert answer.json() == {"score": 1.0, "errors": [{
        "category": "false_finding", "significant": True, "candidate_sentence": "Pneumothorax.",
        "reference_sentence": "No pneumothorax.",
        "explanation": "States pneumothorax; the reference rules it out."}]}


def test_the_api_refuses_a_missing_or_oversized_report_and_strangers(api_client):
    assert api_client.post("/api/compare/", {"candidate": CANDIDATE},
                           format="json").status_code == 400
    huge = {"candidate": "a" * 100_001, "reference": REFERENCE}
    assert api_client.post("/api/compare/", huge, format="json").status_code == 400
    assert APIClient().post("/api/compare/", {"candidate": CANDIDATE, "reference": REFERENCE},
                            format="json").status_code in (401, 403)


def test_the_api_is_in_the_schema(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert "post" in schema["paths"]["/api/compare/"]


def test_the_command_writes_one_line_per_pair_and_prints_the_summary(tmp_path, capsys):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(json.dumps(p) for p in (
        {"id": "a", "candidate": CANDIDATE, "reference": REFERENCE},
        {"id": "b", "candidate": REFERENCE, "reference": REFERENCE})) + "\n")
    out = tmp_path / "out.jsonl"
    call_command("compare_reports", "--input", str(pairs), "--output", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == ["a", "b"]
    assert [line["score"] for line in lines] == [1.0, 0.0]
    printed = capsys.readouterr()
    assert "False finding" in printed.out and "Missing comparison" in printed.out
    assert "2 pairs: 1 with an error, 1 with a significant one" in printed.out
    assert "Comparing" in printed.err  # the progress bar


def test_the_command_names_a_bad_line(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"id": "a", "candidate": "x"}\n')
    with pytest.raises(CommandError, match=r"pairs.jsonl:1: 'reference' must be a report text"):
        call_command("compare_reports", "--input", str(pairs), "--output",
                     str(tmp_path / "out.jsonl"))
