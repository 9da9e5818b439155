"""Build a held-out iu-findings set from the IU reports that the dev set does not use.

    python bench/heldout/build_findings.py --archive NLMCXR_reports.tgz \
        --out-dir /tmp/heldout [--check]

Writes heldout_findings.jsonl and heldout_findings_gold.jsonl in the dev files' formats, so
../shared/bench/score_findings.py scores them. --check first verifies that the MeSH mapping
reproduces the dev gold exactly. The reports are CC BY-NC-ND 4.0: keep the files local.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from iu_archive import read_archive  # noqa: E402
from mesh_labels import labels_from_mesh  # noqa: E402

BENCH = Path(__file__).resolve().parents[2].parent / "shared" / "bench"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--archive", type=Path, required=True)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--bench", type=Path, default=BENCH)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    reports = {r.id: r for r in read_archive(args.archive)}
    dev_ids = {row["id"] for row in read_jsonl(args.bench / "iu_findings_dev.jsonl")}
    dev_ids |= {row["id"] for row in read_jsonl(args.bench / "iu_corrupt_dev.jsonl")}
    if args.check:
        mismatches = 0
        for gold in read_jsonl(args.bench / "iu_findings_dev_gold.jsonl"):
            mine = labels_from_mesh(reports[gold["id"]].mesh_major)
            if mine != gold["labels"]:
                mismatches += 1
                diff = {k: (gold["labels"][k], (mine or {}).get(k)) for k in gold["labels"]
                        if mine is None or gold["labels"][k] != mine[k]}
                print(f"{gold['id']}: {diff} {reports[gold['id']].mesh_major}", file=sys.stderr)
        print(f"mapping check: {mismatches} mismatches against the dev gold", file=sys.stderr)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    kept = 0
    with open(args.out_dir / "heldout_findings.jsonl", "w") as inputs, \
            open(args.out_dir / "heldout_findings_gold.jsonl", "w") as golds:
        for report in reports.values():
            if report.id in dev_ids or not (report.findings or report.impression):
                continue
            labels = labels_from_mesh(report.mesh_major)
            if labels is None:
                continue
            inputs.write(
                json.dumps(
                    {
                        "id": report.id,
                        "findings": report.findings,
                        "impression": report.impression,
                        "report": report.report,
                    }
                )
                + "\n"
            )
            golds.write(json.dumps({"id": report.id, "labels": labels}) + "\n")
            kept += 1
    print(f"wrote {kept} held-out reports to {args.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
