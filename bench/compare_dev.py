"""The report comparison (workers/compare) scored on the corrupted dev sets: figures, no asserts.

Each corrupted report of ../shared/bench is compared with its original (``original_report``)
as candidate against reference. The gold knows the one injected error, so the comparison
must find exactly one error, of the category the operation maps to (docs/compare.md):

    negation_removal   -> false_finding    ("No pneumothorax." -> "Pneumothorax.")
    negation_insertion -> missing_finding  ("Right effusion." -> "No right effusion.")
    laterality_swap    -> location         (left <-> right)
    replace            -> false_finding when the replaced mention was affirmed (or hedged) in
                          the original sentence ("Borderline cardiomegaly." -> "Borderline
                          aspergillosis."), missing_finding when it was denied ("No
                          pneumothorax or effusion." -> "No cirrhosis or effusion.": the
                          candidate no longer rules pneumothorax out). The gold does not say
                          which; the one negation (workers/nlp/polarity.py) reads the
                          original sentence at the replaced words.

A clean report (its own original) must get no significant error. Every figure is given on the
two fixed halves of the sets (SHA-1 of the id, first byte even: A — the split of
bench/dev_halves.py; the rules were read off half A) and on both together. Then Kendall's τ-b
between the comparison's score (and its error count) and the true number of errors, over
mixtures: the clean reports (0), the corrupted ones (1) and, for the mimic-style reports
corrupted in both x1 and x3 in different sentences, the report with both errors (2) — and
between the number of significant errors and the same truth. Last, the throughput of
``compare_reports`` in this process: first on pairs of two texts never read, nothing cached
(the worst case), then over all the pairs with the report caches emptied (a text that several
pairs share, such as an original report, is read once).

    .venv/bin/python bench/compare_dev.py [--show N] [--half A|B] [--set NAME]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCH = ROOT.parent / "shared" / "bench"

from scipy.stats import kendalltau  # noqa: E402

from workers.compare import statements  # noqa: E402
from workers.compare.categories import KEYS  # noqa: E402
from workers.compare.compare import compare_reports  # noqa: E402
from workers.nlp import findings, sections  # noqa: E402
from workers.nlp.polarity import assertion_at  # noqa: E402

SETS = (
    ("iu_corrupt", "iu_corrupt_dev.jsonl", "iu_corrupt_dev_gold.jsonl"),
    ("mimic_x1", "mimic_style_corrupt_x1.jsonl", "mimic_style_corrupt_x1_gold.jsonl"),
    ("mimic_x3", "mimic_style_corrupt_x3.jsonl", "mimic_style_corrupt_x3_gold.jsonl"),
    ("mimic_clean", "mimic_style_clean.jsonl", "mimic_style_clean_gold.jsonl"),
)
FIXED = {"negation_removal": "false_finding", "negation_insertion": "missing_finding",
         "laterality_swap": "location"}


def half(report_id: str) -> str:
    return "A" if hashlib.sha1(report_id.encode("utf-8")).digest()[0] % 2 == 0 else "B"


def expected_category(gold: dict) -> str | None:
    """The category the injected error belongs to (None for a clean report)."""
    operation = gold.get("operation")
    if not operation:
        return None
    if operation in FIXED:
        return FIXED[operation]
    if operation != "replace":
        raise SystemExit(f"{gold['id']}: no category for the operation {operation!r}")
    sentence, replaced = gold["original_sentence"], gold["edit"]["from"]
    at = sentence.lower().find(replaced.lower())
    if at < 0:
        raise SystemExit(f"{gold['id']}: {replaced!r} is not in its original sentence")
    polarity = assertion_at(sentence, at, at + len(replaced))
    return "missing_finding" if polarity.negated else "false_finding"


def _read(name: str) -> list[dict]:
    path = BENCH / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def load_cases() -> list[dict]:
    cases = []
    for set_name, inputs, gold in SETS:
        reports = {r["id"]: r["report"] for r in _read(inputs)}
        for g in _read(gold):
            cases.append({
                "set": set_name, "id": g["id"], "half": half(g["id"]),
                "candidate": reports[g["id"]], "reference": g["original_report"],
                "expected": expected_category(g), "gold": g,
            })
    return cases


def _double_errors(cases: list[dict]) -> list[dict]:
    """Mimic-style reports with both their x1 and their x3 error (in different sentences)."""
    by_set = defaultdict(dict)
    for case in cases:
        by_set[case["set"]][case["id"]] = case
    out = []
    for report_id, x1 in by_set["mimic_x1"].items():
        x3 = by_set["mimic_x3"].get(report_id)
        if not x3 or not x1["expected"] or not x3["expected"]:
            continue
        if x1["reference"] != x3["reference"]:
            continue
        g1, g3 = x1["gold"], x3["gold"]
        if g1["original_sentence"] == g3["original_sentence"]:
            continue
        if x1["candidate"].count(g3["original_sentence"]) != 1 \
                or g3["original_sentence"] in g1["error_sentence"] \
                or g1["error_sentence"] in g3["original_sentence"]:
            continue
        both = x1["candidate"].replace(g3["original_sentence"], g3["error_sentence"])
        out.append({"set": "mimic_x1+x3", "id": report_id, "half": x1["half"],
                    "candidate": both, "reference": x1["reference"], "true_errors": 2})
    return out


def _empty_caches() -> None:
    statements.read_report.cache_clear()
    findings._cached.cache_clear()
    sections.parse_report.cache_clear()


def _short(text: str | None, width: int = 110) -> str:
    text = re.sub(r"\s+", " ", text or "")
    return text if len(text) <= width else text[:width - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show", type=int, default=0, help="print N misses per set and half")
    parser.add_argument("--half", choices=("A", "B"), help="show misses of this half only")
    parser.add_argument("--set", help="show misses of this set only")
    args = parser.parse_args()

    cases = load_cases()
    compare_reports("FINDINGS: No pneumothorax.", "FINDINGS: Small left effusion.")  # load spaCy
    # First the worst case: pairs of two texts never read before, nothing cached at all
    # (the corrupted IU and x1 reports and their originals: every text differs).
    cold = [c for c in cases if c["expected"] and c["set"] in ("iu_corrupt", "mimic_x1")]
    started = time.perf_counter()
    for case in cold:
        compare_reports(case["candidate"], case["reference"])
    cold_elapsed = time.perf_counter() - started
    _empty_caches()
    started = time.perf_counter()
    for case in cases:
        case["result"] = compare_reports(case["candidate"], case["reference"])
    elapsed = time.perf_counter() - started
    distinct = len({(c["candidate"], c["reference"]) for c in cases})
    texts = len({c["candidate"] for c in cases} | {c["reference"] for c in cases})

    rows = defaultdict(Counter)  # (set, half) -> counts
    misses = defaultdict(list)
    by_operation = defaultdict(Counter)
    for case in cases:
        errors = case["result"].errors
        for key in ((case["set"], case["half"]), (case["set"], "all"), ("ALL", case["half"]),
                    ("ALL", "all")):
            row = rows[key]
            if case["expected"] is None:
                row["clean"] += 1
                row["clean_significant"] += any(e.significant for e in errors)
                row["clean_any"] += bool(errors)
            else:
                row["corrupted"] += 1
                hit = len(errors) == 1 and errors[0].category == case["expected"]
                row["exact"] += hit
                row["found"] += any(e.category == case["expected"] for e in errors)
                row["none"] += not errors
        if case["expected"] is not None:
            op = (case["gold"]["operation"], case["expected"])
            by_operation[op]["n"] += 1
            by_operation[op]["exact"] += (len(errors) == 1
                                          and errors[0].category == case["expected"])
            by_operation[op]["significant"] += any(e.significant for e in errors)
            if not (len(errors) == 1 and errors[0].category == case["expected"]):
                misses[(case["set"], case["half"])].append(case)
        elif errors:
            misses[(case["set"], case["half"])].append(case)

    print("exact: the one injected error found, in its category, and no other error")
    print(f"{'set':<14}{'half':<6}{'corrupted':>10}{'exact':>8}{'found':>8}{'none':>7}"
          f"{'clean':>8}{'clean sig.':>11}{'clean any':>10}")
    for (set_name, part), row in sorted(rows.items(), key=lambda kv: (kv[0][0] == "ALL", kv[0])):
        corrupted, clean = row["corrupted"] or 1, row["clean"] or 1
        print(f"{set_name:<14}{part:<6}{row['corrupted']:>10}"
              f"{row['exact'] / corrupted:>8.3f}{row['found'] / corrupted:>8.3f}"
              f"{row['none'] / corrupted:>7.3f}{row['clean']:>8}"
              f"{row['clean_significant'] / clean:>11.3f}{row['clean_any'] / clean:>10.3f}")
    print()
    print(f"{'operation':<20}{'category':<17}{'n':>6}{'exact':>8}{'significant':>13}")
    for (op, category), row in sorted(by_operation.items()):
        print(f"{op:<20}{category:<17}{row['n']:>6}{row['exact'] / row['n']:>8.3f}"
              f"{row['significant'] / row['n']:>13.3f}")

    mixtures = _double_errors(cases)
    for case in mixtures:
        case["result"] = compare_reports(case["candidate"], case["reference"])
    print()
    print(f"Kendall's τ-b against the true error count (0 clean, 1 corrupted, 2 for "
          f"{len(mixtures)} x1+x3 doubles)")
    print(f"{'pairs':<30}{'n':>6}{'τ(score)':>10}{'τ(significant)':>16}")
    everything = [c for c in cases] + mixtures
    for label, chosen in (
            ("all sets + doubles", everything),
            ("all sets + doubles, half A", [c for c in everything if c["half"] == "A"]),
            ("all sets + doubles, half B", [c for c in everything if c["half"] == "B"]),
            ("mimic x1/x3/clean + doubles", [c for c in everything if c["set"] != "iu_corrupt"])):
        truth = [c.get("true_errors", 0 if c.get("expected") is None else 1) for c in chosen]
        score = [c["result"].score for c in chosen]
        significant = [c["result"].significant for c in chosen]
        print(f"{label:<30}{len(chosen):>6}{kendalltau(score, truth).statistic:>10.3f}"
              f"{kendalltau(significant, truth).statistic:>16.3f}")

    counts = Counter(e.category for c in cases for e in c["result"].errors)
    print()
    print("errors by category over all pairs:", {k: counts.get(k, 0) for k in KEYS})
    print(f"throughput, worst case: {len(cold)} pairs of two new texts, nothing cached, in "
          f"{cold_elapsed:.2f} s = {len(cold) / cold_elapsed:.0f} pairs/s in one process")
    print(f"throughput: {len(cases)} pairs ({distinct} distinct, {texts} distinct texts, each "
          f"read once) in {elapsed:.2f} s = {len(cases) / elapsed:.0f} pairs/s in one process "
          f"(report caches emptied first; spaCy loaded)")

    if args.show:
        for (set_name, part), found in sorted(misses.items()):
            if (args.half and part != args.half) or (args.set and set_name != args.set):
                continue
            print(f"\n== misses in {set_name}, half {part}: {len(found)}")
            for case in found[:args.show]:
                gold = case["gold"]
                print(f"-- {case['id']} {gold.get('operation')} expected {case['expected']}")
                if gold.get("operation"):
                    print(f"   original: {_short(gold['original_sentence'])}")
                    print(f"   error:    {_short(gold['error_sentence'])}")
                for e in case["result"].errors:
                    print(f"   [{e.category}{' SIG' if e.significant else ''}] {e.explanation}")
                    print(f"      cand: {_short(e.candidate_sentence)}")
                    print(f"      ref:  {_short(e.reference_sentence)}")


if __name__ == "__main__":
    main()
