"""JSONL pairs in, JSONL comparisons out; a bad line names its file and line and writes
nothing; the summary counts errors by category."""
from __future__ import annotations

import json

import pytest

from workers.compare.batch import PairInputError, Summary, compare_file, count_pairs

REFERENCE = "FINDINGS: No pneumothorax. Small left pleural effusion."


def write(path, lines):
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    return path


def test_each_pair_gets_a_line_with_its_id_score_and_errors(tmp_path):
    pairs = write(tmp_path / "pairs.jsonl", [
        {"id": "same", "candidate": REFERENCE, "reference": REFERENCE},
        {"id": 7, "candidate": REFERENCE.replace("No pneumothorax", "Pneumothorax"),
         "reference": REFERENCE, "extra": "ignored"},
    ])
    seen = []
    summary = compare_file(pairs, tmp_path / "out.jsonl", progress=seen.append)
    out = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert out[0] == {"id": "same", "score": 0.0, "errors": []}
    assert out[1]["id"] == 7 and out[1]["score"] == 1.0
    assert out[1]["errors"] == [{
        "category": "false_finding", "significant": True, "candidate_sentence": "Pneumothorax.",
        "reference_sentence": "No pneumothorax.",
        "explanation": "States pneumothorax; the reference rules it out."}]
    assert seen == [1, 1]
    assert (summary.pairs, summary.with_errors, summary.with_significant) == (2, 1, 1)
    assert summary.errors["false_finding"] == summary.significant["false_finding"] == 1
    assert count_pairs(pairs) == 2


@pytest.mark.parametrize("line, message", [
    ('{"id": 1, "candidate": "x"}', "'reference' must be a report text"),
    ('{"id": 1, "candidate": 3, "reference": "x"}', "'candidate' must be a report text"),
    ('[1, 2]', "expected a JSON object"),
    ('{"id": 1, "candidate": "x", "reference": "' + "a" * 100_001 + '"}', "longer than"),
])
def test_a_bad_line_names_the_file_and_line_and_nothing_is_written(tmp_path, line, message):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps({"id": 0, "candidate": "", "reference": ""}) + "\n" + line + "\n")
    out = tmp_path / "out.jsonl"
    with pytest.raises(PairInputError if "JSON object" not in message else ValueError) as caught:
        compare_file(pairs, out)
    assert f"{pairs}:2" in str(caught.value) and message in str(caught.value)
    assert not out.exists()


def test_the_summary_table_lists_every_category_per_pair():
    summary = Summary(pairs=4)
    summary.errors["location"], summary.significant["location"] = 2, 1
    table = summary.table().splitlines()
    assert table[0].split() == ["category", "errors", "per", "pair", "significant", "per", "pair"]
    location = next(line for line in table if line.startswith("Wrong location or side"))
    assert location.split()[-4:] == ["2", "0.500", "1", "0.250"]
    assert table[-1] == "4 pairs: 0 with an error, 0 with a significant one"
