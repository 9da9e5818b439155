"""The system combination's calibration (docs/audit.md) on the iu-corrupt dev reports.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/combination_calibration.py [--audit AUDIT.jsonl] [--alphas 0.05,0.1,0.2]

There are no radiologists' decisions on these machines, so the benchmark's gold stands in for
them: the injected error sentence of a report is "judged wrong", every other sentence "judged
right" (as if the radiologist signed the rest). The combined scores are those of
``audit_reports`` (the text detectors and the site's default combination) — run here unless
``--audit`` gives its output. For each α: the calibration is fitted on one half of the reports
and its display threshold chosen on the other (workers.combine.calibration.fit); the figures
are the hold-out half's, beside the raw score at the default flag threshold 0.3 on the same
half:

* true sentences flagged (the share of the sentences judged right; what α controls);
* wrong sentences flagged (the injected errors caught);
* reliability: the mean probability of error against the share judged wrong, per bin.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from bench_django import use_private_data_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BENCH = ROOT.parent / "shared" / "bench"
RAW_THRESHOLD = 0.3


def audit(input_path: Path, reference: Path) -> Path:
    work = Path(use_private_data_dir(prefix="combination-calibration-"))
    output = work / "audit.jsonl"
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, check=True)
    subprocess.run([sys.executable, "manage.py", "audit_reports", "--input", str(input_path),
                    "--output", str(output), "--reference", str(reference)], cwd=ROOT, check=True)
    return output


def examples(audit_path: Path, reports: dict[str, str], gold: dict[str, dict]):
    from workers.combine.calibration import Example
    from workers.pipeline import parse_report

    found = []
    for line in audit_path.read_text().splitlines():
        row = json.loads(line)
        scores: dict[int, float] = {}
        for detection in row["detections"]:
            if detection["detector"] == "combined":
                index = detection["sentence_index"]
                scores[index] = max(scores.get(index, 0.0), detection["confidence"])
        truth = gold[row["id"]]
        wrong_text = truth.get("error_sentence") if truth.get("has_error") else None
        for sentence in parse_report(reports[row["id"]]):
            if sentence.section not in ("findings", "impression"):
                continue
            wrong = wrong_text is not None and sentence.text.strip() == wrong_text.strip()
            found.append(Example(scores.get(sentence.index), wrong, row["id"]))
    return found


def raw_rates(held, threshold: float) -> tuple[float, float]:
    right = [e for e in held if not e.error]
    wrong = [e for e in held if e.error]

    def flagged(e):
        return e.score is not None and e.score >= threshold

    return (sum(map(flagged, right)) / len(right), sum(map(flagged, wrong)) / len(wrong))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=BENCH / "iu_corrupt_dev.jsonl")
    parser.add_argument("--gold", type=Path, default=BENCH / "iu_corrupt_dev_gold.jsonl")
    parser.add_argument("--reference", type=Path, default=BENCH / "iu_findings_dev.jsonl")
    parser.add_argument("--audit", type=Path, help="audit_reports output to reuse")
    parser.add_argument("--alphas", default="0.05,0.1,0.2")
    args = parser.parse_args()

    from workers.combine.calibration import fit, split

    reports = {r["id"]: r["report"] for r in map(json.loads, args.input.read_text().splitlines())}
    gold = {g["id"]: g for g in map(json.loads, args.gold.read_text().splitlines())}
    audit_path = args.audit or audit(args.input, args.reference)
    found = examples(audit_path, reports, gold)
    _, held = split(found)
    print(f"{len(reports)} reports, {len(found)} sentences ({sum(e.error for e in found)} "
          f"injected errors found by text; {sum(e.score is not None for e in found)} scored)")
    true_raw, caught_raw = raw_rates(held, RAW_THRESHOLD)
    print(f"hold-out half, raw score ≥ {RAW_THRESHOLD}: true sentences flagged {true_raw:.3f}, "
          f"errors caught {caught_raw:.3f}")
    for alpha in (float(a) for a in args.alphas.split(",")):
        result = fit(found, alpha=alpha)
        held_out = result.held_out
        print(f"α = {alpha}: display threshold {result.threshold}; hold-out true sentences "
              f"flagged {held_out['true_flag_rate']:.3f} "
              f"(adjusted {held_out['adjusted_risk']:.3f}), "
              f"errors caught {held_out['error_catch_rate']:.3f}")
    print("reliability on the hold-out half (last fit): probability bin, sentences, mean "
          "probability, share wrong")
    for row in result.reliability:
        if row["sentences"]:
            print(f"  {row['from']:.1f}–{row['to']:.1f}  {row['sentences']:>5}  "
                  f"{row['mean_probability']:.3f}  {row['share_wrong']:.3f}")


if __name__ == "__main__":
    main()
