"""The audit and labeling commands as their users run them: whole processes, timed from outside.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/commands_throughput.py [--audit-sets iu_corrupt_dev,...]
        [--label-sets iu_findings_dev,...] [--repeat 2] [--data-dir DIR]

* ``manage.py audit_reports --reference iu_findings_dev.jsonl`` on the audit sets joined into
  one input (by default iu_corrupt_dev + mimic_style_corrupt_x1: 873 + 309 = 1,182 reports,
  IU and MIMIC-style), in a subprocess with its own data dir (migrated here). The first run
  embeds the reference and counts the library (both then kept under the data dir's cache);
  the next runs read them back. For each run: the command's own figures (reports/s after
  start-up, library included; CPU per report; its phases), the whole process's wall and CPU
  time, and the load average.
* ``manage.py label_reports`` on the distinct report texts of the label sets (by default all
  six dev files: 2,285 distinct texts), and in the same run, alternated with it, medspacy's
  bare pipeline on the same texts in a subprocess of its own (spaCy's blank English,
  sentencizer, medspacy's target matcher, medspacy's default ConText rules, ``nlp.pipe``):
  once with twelve literal targets (as bench/label_throughput.py has it), once with the
  vocabulary's concepts as regular-expression targets (the targets label_reports looks for).
  Whole-process wall and CPU, imports included, for all three: what a user waits for.

The machine's other load moves wall figures a lot; CPU seconds per report move less.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT.parent / "shared" / "bench"
PYTHON = str(ROOT / ".venv" / "bin" / "python")
LABEL_SETS = ("iu_findings_dev,mimic_style_findings,iu_corrupt_dev,mimic_style_clean,"
              "mimic_style_corrupt_x1,mimic_style_corrupt_x3")

MEDSPACY = r'''
import json, logging, sys
logging.getLogger("PyRuSH").disabled = True
import spacy
from medspacy.ner import TargetRule
nlp = spacy.blank("en")
nlp.add_pipe("sentencizer")
matcher = nlp.add_pipe("medspacy_target_matcher")
if sys.argv[2] == "vocabulary":
    sys.path.insert(0, sys.argv[3])
    from workers.nlp.vocabulary import CONCEPTS
    rules = [TargetRule(c.name, "FINDING", pattern=r"(?<![\w-])(?:" + "|".join(c.patterns)
                        + r")(?![\w])") for c in CONCEPTS]
else:
    rules = [TargetRule(t, "FINDING") for t in (
        "pneumothorax", "pleural effusion", "effusion", "consolidation", "cardiomegaly",
        "opacity", "edema", "atelectasis", "pneumonia", "fracture", "nodule", "mass")]
matcher.add(rules)
nlp.add_pipe("medspacy_context")
texts = [json.loads(line)["report"] for line in open(sys.argv[1], encoding="utf-8")]
found = sum(len(doc.ents) for doc in nlp.pipe(texts, batch_size=64))
print(f"{len(texts)} reports, {found} targets")
'''


def run(command: list[str], env: dict) -> tuple[float, float, str]:
    """(wall s, CPU s of the process and its threads, stdout + stderr) of one subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout + done.stderr


def joined(names: str, path: Path, distinct: bool) -> int:
    """The sets' records in one file (distinct report texts only, with ``distinct``)."""
    seen, count = set(), 0
    with path.open("w", encoding="utf-8") as out:
        for name in names.split(","):
            for line in (BENCH / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
                record = json.loads(line)
                if distinct:
                    if record["report"] in seen:
                        continue
                    seen.add(record["report"])
                    record = {"id": f"{name}:{record['id']}", "report": record["report"]}
                out.write(json.dumps(record) + "\n")
                count += 1
    return count


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--audit-sets", default="iu_corrupt_dev,mimic_style_corrupt_x1")
    parser.add_argument("--label-sets", default=LABEL_SETS)
    parser.add_argument("--reference", default=str(BENCH / "iu_findings_dev.jsonl"))
    parser.add_argument("--repeat", type=int, default=2, help="runs of each (default 2)")
    parser.add_argument("--data-dir", help="data dir to use (default: a new one, removed)")
    parser.add_argument("--skip-audit", action="store_true")
    parser.add_argument("--skip-label", action="store_true")
    args = parser.parse_args()

    scratch = tempfile.TemporaryDirectory(prefix="radreview-commands-bench-")
    work = Path(scratch.name)
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "RADREVIEW_DATA_DIR": args.data_dir or str(work / "data")}
    env.pop("DATABASE_URL", None)
    print(f"{os.cpu_count()} cores; {load()}")
    if not args.skip_audit:
        audit_input = work / "audit.jsonl"
        n = joined(args.audit_sets, audit_input, distinct=False)
        Path(env["RADREVIEW_DATA_DIR"]).mkdir(parents=True, exist_ok=True)
        run([PYTHON, "manage.py", "migrate", "-v0"], env)
        print(f"\naudit_reports: {n} reports ({args.audit_sets}), --reference {args.reference}")
        for number in range(1, args.repeat + 1):
            wall, cpu, output = run([PYTHON, "manage.py", "audit_reports", "--input",
                                     str(audit_input), "--output", str(work / "audit.out"),
                                     "--reference", args.reference], env)
            figures = output[output.rindex("Audited "):].strip()
            print(f"run {number}: process {wall:.1f} s wall, {cpu:.1f} s CPU "
                  f"({1000 * cpu / n:.1f} ms CPU per report); {load()}\n  "
                  + figures.replace("\n", "\n  "))
    if not args.skip_label:
        label_input = work / "label.jsonl"
        n = joined(args.label_sets, label_input, distinct=True)
        print(f"\nlabel_reports and medspacy's bare pipeline: {n} distinct reports "
              f"({args.label_sets})")
        runs = {
            "label_reports": [PYTHON, "manage.py", "label_reports", "--input",
                              str(label_input), "--output", str(work / "label.out")],
            "medspacy, 12 literal targets": [PYTHON, "-c", MEDSPACY, str(label_input),
                                             "literal"],
            "medspacy, the vocabulary's concepts as regex targets": [
                PYTHON, "-c", MEDSPACY, str(label_input), "vocabulary", str(ROOT)],
        }
        for number in range(1, args.repeat + 1):
            for name, command in runs.items():
                wall, cpu, output = run(command, env)
                said = re.findall(r"labelled \d+ reports in [\d.]+ s|\d+ reports, \d+ targets",
                                  output)
                print(f"run {number}, {name}: {wall:.1f} s wall = {n / wall:.0f} reports/s, "
                      f"{cpu:.1f} s CPU ({1000 * cpu / n:.2f} ms per report); {load()}"
                      + (f" ({said[-1]})" if said else ""))


if __name__ == "__main__":
    main()
