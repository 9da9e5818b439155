"""``manage.py calibrate``: the result JSON on stdout and in --output, errors naming the line."""
import json

import pytest
from django.core.management import CommandError, call_command

from radreview.calibration.models import Calibration

from .helpers import pre_scored_lines

SUMMARY_KEYS = {
    "lambda1",
    "lambda1_by_category",
    "lambda2",
    "alpha",
    "n_sentences",
    "risk_at_lambda1",
    "sentence_flag_rate",
    "report_flag_rate",
}


def write(tmp_path, lines, name="cal.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def run(capsys, *args):
    capsys.readouterr()
    call_command("calibrate", *args)
    return json.loads(capsys.readouterr().out)


def test_result_on_stdout_and_in_the_output_file(tmp_path, capsys):
    path = write(
        tmp_path,
        [
            json.dumps(
                {
                    "id": "a",
                    "n_samples": 3,
                    "sentences": [
                        {"text": "x", "support": 0, "factual": True},
                        {"text": "y", "support": 1, "factual": True},
                        {"text": "z", "support": 2, "factual": False},
                        {"text": "w", "support": 3, "factual": True},
                    ],
                }
            )
        ],
    )
    output = tmp_path / "out" / "result.json"
    printed = run(
        capsys,
        "--input",
        path,
        "--alpha",
        "0.4",
        "--target-report-rate",
        "1",
        "--output",
        str(output),
    )
    assert json.loads(output.read_text()) == printed
    assert SUMMARY_KEYS <= set(printed)
    # Hand-computed in tests/workers/radflag/test_calibration.py: α = 0.4 gives λ1 = 1.
    assert printed["lambda1"] == 1 and printed["alpha"] == 0.4 and printed["n_sentences"] == 4
    assert printed["risk_at_lambda1"] == 0.25 and printed["sentence_flag_rate"] == 0.25
    assert printed["lambda2"] == 1 and printed["report_flag_rate"] == 1.0
    assert printed["lambda1_by_category"] == {}


def test_per_category(tmp_path, capsys):
    printed = run(
        capsys, "--input", write(tmp_path, pre_scored_lines()), "--alpha", "0.2", "--per-category"
    )
    assert set(printed["lambda1_by_category"]) == {"Lungs", "Pleura"} and printed["lambda2"] is None


@pytest.mark.parametrize(
    "lines, args, message",
    [
        (["{bad"], ["--alpha", "0.1"], "cal.jsonl:1: bad JSON"),
        (['{"id": ' * 1100 + "1" + "}" * 1100], ["--alpha", "0.1"],
         "cal.jsonl:1: the JSON is nested too deeply (the limit is 32 levels"),
        (
            pre_scored_lines()[:2] + [json.dumps({"id": "x", "n_samples": 10})],
            ["--alpha", "0.1"],
            "cal.jsonl:3: 'sentences' must be a list",
        ),
        (
            pre_scored_lines()[:1]
            + [
                json.dumps(
                    {
                        "id": "x",
                        "n_samples": 10,
                        "sentences": [{"text": "t", "support": 12, "factual": True}],
                    }
                )
            ],
            ["--alpha", "0.1"],
            "cal.jsonl:2: sentence 1: support 12 is outside 0..10",
        ),
        (
            [json.dumps({"id": "x", "candidate": "No effusion."})],
            ["--alpha", "0.1"],
            "cal.jsonl:1: missing 'samples'",
        ),
        ([""], ["--alpha", "0.1"], "no calibration reports"),
        (pre_scored_lines(), ["--alpha", "0"], "alpha must be strictly between 0 and 1"),
        (pre_scored_lines(), ["--alpha", "1"], "alpha must be strictly between 0 and 1"),
        (pre_scored_lines(), ["--alpha", "abc"], "--alpha must be a number"),
        (
            pre_scored_lines(),
            ["--alpha", "0.1", "--target-report-rate", "2"],
            "target report rate must be between 0 and 1",
        ),
    ],
)
def test_invalid_input_is_refused_naming_the_line(tmp_path, lines, args, message):
    with pytest.raises(CommandError, match=message.replace(".", r"\.").replace("(", r"\(")):
        call_command("calibrate", "--input", write(tmp_path, lines), *args)


def test_a_missing_file(tmp_path):
    with pytest.raises(CommandError, match="no such file"):
        call_command("calibrate", "--input", str(tmp_path / "nope.jsonl"), "--alpha", "0.1")


@pytest.mark.django_db
def test_save_keeps_a_new_version_not_activated(tmp_path, capsys):
    printed = run(
        capsys, "--input", write(tmp_path, pre_scored_lines()), "--alpha", "0.2", "--save"
    )
    calibration = Calibration.objects.get()
    assert calibration.version == 1 and calibration.lambda1 == printed["lambda1"]
    assert not calibration.activations.exists()
