"""The dev sets' figures on two fixed halves of each set, for the held-out habit.

A rule read off one half of a dev set is kept only if it does not hurt the other half (and
ideally helps it). This script runs the label and audit commands as docs/nlp.md and
docs/audit.md measure them, splits every set into halves A and B by the SHA-1 of the report id
(first byte even: A; the same split every run) and scores each half and the whole set with the
shared scorers. Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/dev_halves.py --out /tmp/before        # runs the commands (~3 min)
    .venv/bin/python bench/dev_halves.py --out /tmp/before --score-only
    .venv/bin/python bench/dev_halves.py --out /tmp/after --diff /tmp/before

``--diff DIR`` also counts, per set and half, the output lines that differ from an earlier
run's (the reports a change touched).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"

# (name, command, input, gold, scorer, scorer flags, figures printed)
LABEL_FIGURES = ("micro_f1", "macro_f1")
AUDIT_FIGURES = ("detection_acc", "localization_acc", "fix_rate", "false_alarm")
SETS = [
    ("iu_findings", "label_reports", "iu_findings_dev.jsonl", "iu_findings_dev_gold.jsonl",
     "score_findings.py", (), LABEL_FIGURES),
    ("mimic_findings", "label_reports", "mimic_style_findings.jsonl",
     "mimic_style_findings_gold.jsonl", "score_findings.py", ("--uncertain-positive",),
     LABEL_FIGURES),
    ("iu_corrupt", "audit_reports", "iu_corrupt_dev.jsonl", "iu_corrupt_dev_gold.jsonl",
     "score_corrections.py", (), AUDIT_FIGURES),
    ("mimic_clean", "audit_reports", "mimic_style_clean.jsonl", "mimic_style_clean_gold.jsonl",
     "score_corrections.py", (), ("false_alarm",)),
    ("mimic_x1", "audit_reports", "mimic_style_corrupt_x1.jsonl",
     "mimic_style_corrupt_x1_gold.jsonl", "score_corrections.py", (), AUDIT_FIGURES),
    ("mimic_x3", "audit_reports", "mimic_style_corrupt_x3.jsonl",
     "mimic_style_corrupt_x3_gold.jsonl", "score_corrections.py", (), AUDIT_FIGURES),
]


def half(report_id: str) -> str:
    """'A' or 'B': the fixed half of a dev set a report belongs to."""
    return "A" if hashlib.sha1(report_id.encode("utf-8")).digest()[0] % 2 == 0 else "B"


def _by_id(path: Path) -> dict[str, str]:
    """A JSONL file's lines by their record's id."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {json.loads(line)["id"]: line for line in lines}


def _run(command: str, source: Path, output: Path) -> None:
    args = [sys.executable, "manage.py", command, "--input", str(source), "--output", str(output)]
    if command == "audit_reports":
        args += ["--reference", str(BENCH / "iu_findings_dev.jsonl")]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{' '.join(args[1:3])} failed:\n{done.stderr[-3000:]}")


def _score(scorer: str, flags: tuple[str, ...], gold: list[str], pred: list[str],
           tmp: Path) -> dict[str, float]:
    gold_file, pred_file = tmp / "gold.jsonl", tmp / "pred.jsonl"
    gold_file.write_text("\n".join(gold) + "\n", encoding="utf-8")
    pred_file.write_text("\n".join(pred) + "\n", encoding="utf-8")
    out = subprocess.run([sys.executable, str(BENCH / scorer), str(gold_file), str(pred_file),
                          *flags], capture_output=True, text=True, check=True).stdout
    last = out.strip().splitlines()[-1]
    return {k: float(v) for k, v in (field.split("=") for field in last.split())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder for the commands' outputs")
    parser.add_argument("--score-only", action="store_true", help="score the outputs in --out")
    parser.add_argument("--diff", help="an earlier run's --out: count the changed lines")
    parser.add_argument("--sets", nargs="*", help="only these sets (names as printed)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    print(f"{'set':16} {'half':4} {'n':>4} figures" + ("  changed" if args.diff else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for name, command, source, gold, scorer, flags, figures in SETS:
            if args.sets and name not in args.sets:
                continue
            output = out / f"{name}.jsonl"
            if not args.score_only:
                _run(command, BENCH / source, output)
            gold_lines = _by_id(BENCH / gold)
            pred_lines = _by_id(output)
            before = _by_id(Path(args.diff) / output.name) if args.diff else {}
            for part in ("A", "B", "all"):
                ids = [i for i in gold_lines if part == "all" or half(i) == part]
                scores = _score(scorer, flags, [gold_lines[i] for i in ids],
                                [pred_lines[i] for i in ids if i in pred_lines], Path(tmp))
                text = " ".join(f"{k}={scores[k]:.4f}" for k in figures)
                if args.diff:
                    changed = sum(1 for i in ids if before.get(i) != pred_lines.get(i))
                    text += f"  {changed}"
                print(f"{name:16} {part:4} {len(ids):>4} {text}", flush=True)


if __name__ == "__main__":
    main()
