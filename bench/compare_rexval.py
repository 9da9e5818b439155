"""The report comparison (workers/compare) against radiologists' error counts: ReXVal.

ReXVal (Yu et al., "Radiology Report Expert Evaluation (ReXVal) Dataset", PhysioNet, 2023) has
50 MIMIC-CXR studies, each with its ground-truth report and 4 candidate reports, and six
radiologists' counts of each candidate's errors in the six categories workers/compare uses,
clinically significant and not. This script compares every candidate with its ground truth,
and prints Kendall's τ-b between our error counts and the radiologists' mean counts (all
errors, significant errors, and per category) over the 200 pairs — the figure ReXVal's
authors report for metrics (RadCliQ, RadGraph F1, BERTScore, ...).

It is not run in this repository: ReXVal is credentialed PhysioNet data and is not here. Run
it where the data is, and cite what it prints with the commit it ran at (docs/compare.md,
"Citing the figures"):

    .venv/bin/python bench/compare_rexval.py --rexval /path/to/rexval-dataset/1.0.0 \\
        [--output comparisons.jsonl]

The folder must hold ReXVal's two files: ``50_samples_gt_and_candidates.csv`` (a study per
row: ``study_id``, ``gt_report``, and one column per candidate: ``radgraph``, ``bertscore``,
``s_emb``, ``bleu``) and ``6_valid_raters_per_rater_error_categories.csv`` (``study_number``,
``candidate_type``, ``rater_index``, ``error_category`` 1-6, ``clinically_significant``,
``num_errors``). ``study_number`` counts the studies in the first file's row order (from 0; a
file counting from 1 is read so). Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scipy.stats import kendalltau  # noqa: E402

from workers.compare.categories import KEYS  # noqa: E402
from workers.compare.compare import compare_reports  # noqa: E402

REPORTS = "50_samples_gt_and_candidates.csv"
RATINGS = "6_valid_raters_per_rater_error_categories.csv"
CANDIDATES = ("radgraph", "bertscore", "s_emb", "bleu")
# ReXVal's numbering of the categories (its paper's table 1) in workers/compare's keys
CATEGORY_OF = dict(zip(("1", "2", "3", "4", "5", "6"), KEYS, strict=True))


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source))


def _true(value: str) -> bool:
    return str(value).strip().lower() in ("true", "1", "yes")


def read_pairs(folder: Path) -> list[dict]:
    """(study number, candidate type, candidate, reference) for every candidate report."""
    studies = _rows(folder / REPORTS)
    pairs = []
    for number, study in enumerate(studies):
        for candidate in CANDIDATES:
            if candidate not in study:
                raise SystemExit(f"{REPORTS} has no column {candidate!r}")
            pairs.append({"study": number, "candidate_type": candidate,
                          "candidate": study[candidate], "reference": study["gt_report"]})
    return pairs


def read_ratings(folder: Path, studies: int) -> dict[tuple[int, str], dict]:
    """The raters' mean error counts per (study number, candidate type): all errors,
    significant ones, and each category (all errors of it)."""
    ratings = _rows(folder / RATINGS)
    offset = 1 if min(int(r["study_number"]) for r in ratings) == 1 \
        and max(int(r["study_number"]) for r in ratings) == studies else 0
    per_rater: dict[tuple[int, str], dict[str, defaultdict]] = defaultdict(
        lambda: {"all": defaultdict(float), "significant": defaultdict(float),
                 **{key: defaultdict(float) for key in KEYS}})
    raters: dict[tuple[int, str], set[str]] = defaultdict(set)
    for r in ratings:
        key = (int(r["study_number"]) - offset, r["candidate_type"])
        rater, errors = r["rater_index"], float(r["num_errors"])
        raters[key].add(rater)
        per_rater[key]["all"][rater] += errors
        per_rater[key][CATEGORY_OF[str(r["error_category"]).strip()]][rater] += errors
        if _true(r["clinically_significant"]):
            per_rater[key]["significant"][rater] += errors
    return {key: {what: sum(counts.values()) / len(raters[key])
                  for what, counts in found.items()}
            for key, found in per_rater.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rexval", required=True, type=Path,
                        help=f"the folder holding {REPORTS} and {RATINGS}")
    parser.add_argument("--output", type=Path, help="also write each comparison as JSONL")
    args = parser.parse_args()

    pairs = read_pairs(args.rexval)
    ratings = read_ratings(args.rexval, len(pairs) // len(CANDIDATES))
    ours: dict[str, list[float]] = defaultdict(list)
    theirs: dict[str, list[float]] = defaultdict(list)
    written = []
    for pair in pairs:
        rated = ratings.get((pair["study"], pair["candidate_type"]))
        if rated is None:
            continue  # a pair no radiologist rated
        comparison = compare_reports(pair["candidate"], pair["reference"])
        counts = comparison.counts()
        ours["all"].append(len(comparison.errors))
        ours["significant"].append(comparison.significant)
        theirs["all"].append(rated["all"])
        theirs["significant"].append(rated["significant"])
        for key in KEYS:
            ours[key].append(counts[key])
            theirs[key].append(rated[key])
        written.append({"study": pair["study"], "candidate_type": pair["candidate_type"],
                        "radiologists": rated, **comparison.to_dict()})
    if args.output:
        args.output.write_text("".join(json.dumps(w) + "\n" for w in written), encoding="utf-8")

    print(f"ReXVal: {len(written)} rated candidate reports of {len(pairs)}")
    print(f"{'errors':<22}{'ours (mean)':>12}{'raters (mean)':>15}{'Kendall τ-b':>13}{'p':>10}")
    for what in ("all", "significant", *KEYS):
        tau = kendalltau(ours[what], theirs[what])
        mean_ours = sum(ours[what]) / max(len(ours[what]), 1)
        mean_theirs = sum(theirs[what]) / max(len(theirs[what]), 1)
        print(f"{what:<22}{mean_ours:>12.3f}{mean_theirs:>15.3f}{tau.statistic:>13.3f}"
              f"{tau.pvalue:>10.2g}")


if __name__ == "__main__":
    main()
