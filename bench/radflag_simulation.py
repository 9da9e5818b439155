"""RadFlag with the built-in engine on the iu-corrupt dev reports, with simulated samples.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/radflag_simulation.py [--gold ../shared/bench/iu_corrupt_dev_gold.jsonl]
                                                [--n 10] [--agree 4-9] [--seed 0] [--alpha 0.1]

There is no report generator on these machines, so the samples are simulated: for each dev
report, the candidate is the report as given (corrupted or not) and its n samples are
``--agree`` copies of the original (uncorrupted) report, standing for samples that describe the
study correctly, plus n − agree reports of other studies, standing for samples that drift;
``--agree a-b`` draws the number of agreeing samples per report uniformly from a..b.
The ground truth is the original report. Figures:

* support throughput: sentences scored against n samples per second (the engine's ``entail``,
  cold cache);
* at each λ1: the share of injected error sentences flagged (recall) and the share of the
  true sentences that are flagged (larger than the risk the calibration controls, which counts
  true and flagged sentences over all sentences — printed for the test half);
* the CRC choice of λ1 at ``--alpha`` on one half of the reports (calibration) and its
  realised risk and recall on the other half (test).

These figures are about the mechanism and the engine's entailment, not about any generator:
real samples drift in their own ways.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_GOLD = ROOT.parent / "shared" / "bench" / "iu_corrupt_dev_gold.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--agree", default="4-9", help="agreeing samples per report: k or a-b")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--alpha", type=float, default=0.1)
    args = parser.parse_args()

    from workers import nlp
    from workers.radflag.calibration import (
        CalibrationReport,
        CalibrationSentence,
        calibrate,
        select_lambda1,
    )
    from workers.radflag.support import COMPLETE, SCORED_SECTIONS, SUPPORTING, judge_sentences

    rows = [json.loads(line) for line in args.gold.open()]
    originals = [row["original_report"] for row in rows]
    candidates_path = args.gold.with_name(args.gold.name.replace("_gold", ""))
    candidates = {}
    for line in candidates_path.open():
        record = json.loads(line)
        candidates[record["id"]] = record["report"]
    rng = random.Random(args.seed)
    low, _, high = args.agree.partition("-")
    low, high = int(low), int(high or low)
    nlp.parse_report("warm up the engine")  # spaCy and medspacy load here, not in the timing

    reports, errors = [], []
    scored = 0
    started = time.perf_counter()
    for number, row in enumerate(rows):
        agree = rng.randint(low, high)
        others = [originals[i] for i in rng.sample(range(len(rows)), args.n + 1) if i != number]
        samples = [row["original_report"]] * agree + others[: args.n - agree]
        parsed = nlp.parse_report(candidates[row["id"]])
        categories = nlp.sentence_categories(parsed)
        sentences = [s for s in parsed.sentences if s.section in SCORED_SECTIONS]
        texts = [s.text for s in sentences]
        supports = judge_sentences(texts, samples)
        truths = judge_sentences(texts, [row["original_report"]])
        scored += len(texts)
        calibration_sentences = []
        for sentence, verdicts, truth in zip(sentences, supports, truths):
            support = sum(v.verdict in SUPPORTING for v in verdicts)
            calibration_sentences.append(CalibrationSentence(
                sentence.text, support, truth[0].verdict == COMPLETE, categories[sentence.index]))
            if row["has_error"] and sentence.text == row["error_sentence"]:
                errors.append((row["id"], support))
        reports.append(CalibrationReport(row["id"], args.n, tuple(calibration_sentences)))
    elapsed = time.perf_counter() - started
    print(f"{len(rows)} reports, {scored} sentences, n = {args.n} samples ({args.agree} agree): "
          f"{scored / elapsed:.0f} sentences/s scored against all samples ({elapsed:.1f} s)")

    everything = [s for r in reports for s in r.sentences]
    true = [s.support for s in everything if s.factual]
    print(f"{len(true)} true sentences, {len(errors)} injected error sentences found by text")
    print("λ1  errors flagged  true flagged")
    for lam in range(args.n + 2):
        recall = sum(e < lam for _, e in errors) / max(1, len(errors))
        risk = sum(e < lam for e in true) / max(1, len(true))
        print(f"{lam:>2}  {recall:>14.3f}  {risk:>12.3f}")

    rng.shuffle(reports)
    half = len(reports) // 2
    calibration, test = reports[:half], reports[half:]
    result = calibrate(calibration, alpha=args.alpha, target_report_rate=0.15)
    test_sentences = [s for r in test for s in r.sentences]
    lam = result.lambda1
    test_true = [s for s in test_sentences if s.factual]
    realised = sum(s.support < lam for s in test_true) / max(1, len(test_sentences))
    test_ids = {r.id for r in test}
    test_errors = [e for rid, e in errors if rid in test_ids]
    print(f"CRC at α = {args.alpha}: λ1 = {lam} (adjusted risk on calibration "
          f"{result.adjusted_risk_at_lambda1:.3f}); λ2 = {result.lambda2} for 15% of reports")
    print(f"test half: risk L̂ = {realised:.3f} (true sentences flagged / sentences), "
          f"errors flagged {sum(e < lam for e in test_errors)}/{len(test_errors)}")
    per_category = select_lambda1([s.support for s in everything], [s.factual for s in everything],
                                  args.n, args.alpha)
    print(f"(λ1 on all reports at α = {args.alpha}: {per_category})")


if __name__ == "__main__":
    main()
