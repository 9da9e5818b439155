"""The calibration RadReview ships for the combination's score, measured on the bundled
benchmarks, and how well it holds on the half it was not fitted on.

Until a site has enough radiologists' decisions to calibrate the combination on its own data
(docs/audit.md, "Calibrating the combination"), the review page reads each flag's combined score
through this map and shows one number — the chance the sentence is wrong — labelled as
calibrated on the bundled benchmarks. Run from the repository root:

    .venv/bin/python bench/benchmark_calibration.py \
        [--write workers/combine/benchmark_calibration.json]

It audits the four corrupted/clean dev sets (iu-corrupt and the three mimic-style sets) with
``manage.py audit_reports`` against the IU reference file, takes every FINDINGS/IMPRESSION
sentence as an example (the benchmark's injected error sentence "wrong", the others "right", as
if a radiologist had signed the rest), splits the reports into two fixed halves by the SHA-1 of
their id (a clean report and its corrupted copies share an id, so they fall on one side),
fits the isotonic map on one half and prints its reliability on the other. Prints figures;
asserts nothing. With --write, the map and its figures are written for the app to ship.
"""
from __future__ import annotations

import argparse
import hashlib
import json
from datetime import date
from pathlib import Path

from combination_calibration import BENCH, audit, examples

SETS = ("iu_corrupt_dev", "mimic_style_clean", "mimic_style_corrupt_x1", "mimic_style_corrupt_x3")
ALPHA = 0.1  # the threshold this fits is not used: the site's flag threshold stays in force


def _half_key(example) -> str:
    return hashlib.sha1(example.study.encode()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, default=BENCH / "iu_findings_dev.jsonl")
    parser.add_argument("--write", type=Path, help="where to write the shipped map (JSON)")
    args = parser.parse_args()

    from workers.combine.calibration import fit

    found = []
    for name in SETS:
        path = BENCH / f"{name}.jsonl"
        reports = {r["id"]: r["report"] for r in map(json.loads, path.read_text().splitlines())}
        gold = {g["id"]: g for g in map(json.loads, (BENCH / f"{name}_gold.jsonl")
                                        .read_text().splitlines())}
        made = examples(audit(path, args.reference), reports, gold)
        print(f"{name}: {len(reports)} reports, {len(made)} sentences, "
              f"{sum(e.error for e in made)} injected errors")
        found += made
    # workers.combine.calibration.split alternates studies in the order they first appear:
    # ordered by the hash of their id, the halves are fixed and mix the four sets.
    found.sort(key=_half_key)
    result = fit(found, alpha=ALPHA)
    print(f"{result.sentences} sentences ({result.wrong} wrong, {result.right} right) of "
          f"{result.studies} reports; map fitted on one half: {len(result.mapping.starts)} steps")
    print("reliability on the other half: probability bin, sentences, mean probability, "
          "share wrong")
    for row in result.reliability:
        if row["sentences"]:
            print(f"  {row['from']:.1f}–{row['to']:.1f}  {row['sentences']:>6}  "
                  f"{row['mean_probability']:.3f}  {row['share_wrong']:.3f}")
    if args.write:
        shipped = {
            "about": "The combination's score read as a probability of error, fitted on the "
                     "bundled benchmarks by bench/benchmark_calibration.py (docs/audit.md).",
            "made": date.today().isoformat(), "sets": list(SETS),
            "reference": args.reference.name, "sentences": result.sentences,
            "wrong": result.wrong, "right": result.right, "map": result.mapping.as_dict(),
            "reliability_held_out": result.reliability,
        }
        args.write.write_text(json.dumps(shipped, indent=1) + "\n")
        print(f"written to {args.write}")


if __name__ == "__main__":
    main()
