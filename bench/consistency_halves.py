"""The consistency sets' figures on two fixed halves, for the held-out habit (issue 31).

Runs ``manage.py audit_reports`` on ``consistency_within.jsonl`` and
``consistency_priors.jsonl`` (../shared/bench; the audit reads each line's "prior_report",
"prior_date" and "date"), splits the cases into halves A and B by the SHA-1 of their ids
(``bench/dev_halves.half``: the same split as every dev set) and scores each half and the
whole file with ``score_consistency.py``. Rules are read off half A; half B is only scored.
Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/consistency_halves.py --out /tmp/cons          # runs the audits
    .venv/bin/python bench/consistency_halves.py --out /tmp/cons --score-only [--show A]

``--show A`` also prints the scorer's list of misses and false flags of half A (only the
half rules are written for; half B's misses are not read while tuning).

``bench/consistency_own.jsonl`` and ``bench/consistency_own_priors.jsonl`` are ours: wordings
the project's engineers wrote themselves (no case of either half read), in the same format, by
kind (hierarchy, laterality, temporal, severity, count, prior-report claims, and clean reports
that tempt a naive checker). Each is scored whole ("own", "own_priors"; ``--show own`` prints
the first one's misses: rules may be read off them). ``bench/consistency_generated.jsonl`` is
written by ``bench/consistency_stress.py`` (ours, generated from the engine's hierarchy and
generic surface forms; scored whole as "generated", its misses grouped by form by that script).
``bench/consistency_fresh.jsonl`` (120 reports) and ``bench/consistency_fresh_priors.jsonl``
(60 pairs) were written on 2026-11-28 by a second writer of the team who had read neither the
engine's rules and docs nor any case of the shared sets (only the format in their README); they
are halved like the shared sets ("fresh", "fresh_priors"): rules may be read off half A only.
``bench/consistency_fresh2.jsonl`` (60) and ``bench/consistency_fresh2_priors.jsonl`` (30), by a
third writer under the same conditions, are scored whole ("fresh2", "fresh2_priors") and never
read: they only test rules read off the other sets.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from dev_halves import BENCH, _by_id, _run, half

SETS = [("within", BENCH / "consistency_within.jsonl"),
        ("priors", BENCH / "consistency_priors.jsonl"),
        ("own", Path(__file__).resolve().parent / "consistency_own.jsonl"),
        ("own_priors", Path(__file__).resolve().parent / "consistency_own_priors.jsonl"),
        ("generated", Path(__file__).resolve().parent / "consistency_generated.jsonl"),
        ("fresh", Path(__file__).resolve().parent / "consistency_fresh.jsonl"),
        ("fresh_priors", Path(__file__).resolve().parent / "consistency_fresh_priors.jsonl"),
        ("fresh2", Path(__file__).resolve().parent / "consistency_fresh2.jsonl"),
        ("fresh2_priors", Path(__file__).resolve().parent / "consistency_fresh2_priors.jsonl")]


def _score(cases: list[str], output: Path, tmp: Path, show: bool) -> str:
    case_file = tmp / "cases.jsonl"
    case_file.write_text("\n".join(cases) + "\n", encoding="utf-8")
    args = [sys.executable, str(BENCH / "score_consistency.py"), str(case_file), str(output)]
    if show:
        args += ["--show", "200"]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout.strip()
    return out if show else out.splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="folder for the audits' outputs")
    parser.add_argument("--score-only", action="store_true", help="score the outputs in --out")
    parser.add_argument("--show", choices=("A", "B", "all", "own", "own_priors", "generated"),
                        help="print the scorer's detail for this half (or our own set)")
    parser.add_argument("--sets", nargs="*",
                        help="only these sets (within, priors, own, own_priors, generated, "
                             "fresh, fresh_priors, fresh2, fresh2_priors)")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in SETS:
            if args.sets and name not in args.sets:
                continue
            output = out / f"consistency_{name}.jsonl"
            if not args.score_only:
                _run("audit_reports", source, output)
            cases = _by_id(source)
            whole = name.startswith(("own", "generated", "fresh2"))
            for part in ("all",) if whole else ("A", "B", "all"):
                ids = [i for i in cases if part == "all" or half(i) == part]
                show = args.show == (name if whole else part)
                text = _score([cases[i] for i in ids], output, Path(tmp), show)
                print(f"{name:7} {part:3} {len(ids):>3} {text}", flush=True)


if __name__ == "__main__":
    main()
