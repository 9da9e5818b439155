"""bench/compare_rexval.py reads ReXVal's two files as PhysioNet ships them. ReXVal itself is not
here: these files are made up, two studies in its format, to check the reading, not a figure."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

GT = "FINDINGS: No pneumothorax. Small left pleural effusion."


def test_the_script_reads_the_files_and_prints_tau_for_every_category(tmp_path):
    with (tmp_path / "50_samples_gt_and_candidates.csv").open("w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["study_id", "gt_report", "radgraph", "bertscore", "s_emb", "bleu"])
        writer.writerow([101, GT, GT, "FINDINGS: Pneumothorax. Small left pleural effusion.",
                         "FINDINGS: No pneumothorax.", GT])
        writer.writerow([102, GT, "FINDINGS: Large right pleural effusion.", GT, GT, GT])
    with (tmp_path / "6_valid_raters_per_rater_error_categories.csv").open("w",
                                                                          newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["study_number", "candidate_type", "rater_index", "error_category",
                         "clinically_significant", "num_errors"])
        for rater in range(2):
            writer.writerow([0, "bertscore", rater, 1, True, 1])
            writer.writerow([0, "s_emb", rater, 2, False, 1])
            writer.writerow([1, "radgraph", rater, 3, True, 1])
            writer.writerow([1, "radgraph", rater, 4, True, rater])
            for study, candidate in ((0, "radgraph"), (0, "bleu"), (1, "bertscore"),
                                     (1, "s_emb"), (1, "bleu")):
                writer.writerow([study, candidate, rater, 1, False, 0])
    output = tmp_path / "out.jsonl"
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "compare_rexval.py"),
                           "--rexval", str(tmp_path), "--output", str(output)],
                          capture_output=True, text=True, check=True, cwd=ROOT)
    lines = done.stdout.splitlines()
    assert lines[0] == "ReXVal: 8 rated candidate reports of 8"
    assert [line.split()[0] for line in lines[2:]] == [
        "all", "significant", "false_finding", "missing_finding", "location", "severity",
        "false_comparison", "missing_comparison"]
    written = [json.loads(line) for line in output.read_text().splitlines()]
    rated = {(w["study"], w["candidate_type"]): w["radiologists"] for w in written}
    assert rated[(1, "radgraph")]["all"] == 1.5 and rated[(1, "radgraph")]["severity"] == 0.5
    assert rated[(0, "s_emb")]["significant"] == 0
