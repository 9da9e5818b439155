"""Build a held-out iu-corrupt set from IU reports the dev set does not use.

    python bench/heldout/build_corrupt.py --archive NLMCXR_reports.tgz \
        --out-dir /tmp/heldout [--seed 7]

Follows the protocol of ../shared/bench/README.md (one changed sentence per erroneous report;
about 40% left correct) with our own choices, so that a detector tuned on the dev set is
measured on errors it has not seen:
  replace           a CheXpert observation's mention → a disease name from a list that is
                    not the dev set's (conditions a chest radiograph cannot show)
  negation_removal  a negation cue before a finding removed ("No X." → "X.")
  laterality_swap   left ↔ right in a sentence that states a sided finding
Writes heldout_corrupt.jsonl and heldout_corrupt_gold.jsonl for score_corrections.py.
The reports are CC BY-NC-ND 4.0: keep the files local.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_findings import BENCH, read_jsonl  # noqa: E402
from iu_archive import read_archive  # noqa: E402

MENTIONS = [
    "atelectasis", "cardiomegaly", "consolidation", "edema", "fracture", "nodule", "mass",
    "opacity", "opacities", "infiltrate", "effusion", "effusions", "pneumonia", "pneumothorax",
]
UNRELATED = [
    "appendicitis", "cholecystitis", "meningitis", "glaucoma", "psoriasis", "gout", "hepatitis",
    "pancreatitis", "otitis media", "cystitis", "dermatitis", "tonsillitis", "conjunctivitis",
    "migraine", "diverticulitis", "nephrolithiasis", "cataract", "sinusitis", "endometriosis",
    "osteoarthritis of the knee",
]
NEGATIONS = [
    (re.compile(r"^No (\w)"), lambda m: m.group(1).upper()),
    (re.compile(r"\b(There (?:is|are)) no\b"), lambda m: m.group(1)),
    (re.compile(r"\bwithout\b"), lambda m: "with"),
    (
        re.compile(r"\b(is|are) not (seen|identified|present|visualized)\b"),
        lambda m: f"{m.group(1)} {m.group(2)}",
    ),
]
SIDED = re.compile(r"\b(left|right)\b", re.I)
FINDING_WORDS = re.compile(
    r"effusion|opacit|atelecta|consolidat|pneumothorax|nodule|mass|infiltrat|fracture|scar|granuloma",
    re.I,
)


def sentences(section: str) -> list[str]:
    """The bench README's splitter: a period followed by whitespace or the end ends a sentence."""
    parts, start = [], 0
    for match in re.finditer(r"\.(?=\s|$)", section):
        piece = section[start:match.end()].strip()
        if re.fullmatch(r"\d+\.", piece):
            continue
        parts.append(re.sub(r"^\d+\.\s+", "", piece))
        start = match.end()
    tail = section[start:].strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


def replace_op(sentence: str, rng: random.Random) -> str | None:
    words = [m for m in re.finditer(r"\b(" + "|".join(MENTIONS) + r")\b", sentence, re.I)]
    if not words:
        return None
    match = rng.choice(words)
    new = rng.choice(UNRELATED)
    if match.group(0)[0].isupper():
        new = new[0].upper() + new[1:]
    return sentence[:match.start()] + new + sentence[match.end():]


def negation_op(sentence: str, rng: random.Random) -> str | None:
    for pattern, replacement in NEGATIONS:
        if pattern.search(sentence) and FINDING_WORDS.search(sentence):
            return pattern.sub(replacement, sentence, count=1)
    return None


def laterality_op(sentence: str, rng: random.Random) -> str | None:
    if not FINDING_WORDS.search(sentence) or re.search(r"\bno\b|without", sentence, re.I):
        return None
    sides = list(SIDED.finditer(sentence))
    if not sides:
        return None
    match = rng.choice(sides)
    swapped = {"left": "right", "right": "left"}[match.group(0).lower()]
    if match.group(0)[0].isupper():
        swapped = swapped.capitalize()
    return sentence[:match.start()] + swapped + sentence[match.end():]


OPERATIONS = {
    "replace": replace_op,
    "negation_removal": negation_op,
    "laterality_swap": laterality_op,
}


def corrupt(report, rng: random.Random) -> dict:
    original = report.report
    case = rng.choices(["correct", "findings", "impression"], weights=[0.4, 0.45, 0.15])[0]
    gold = {"id": report.id, "has_error": False, "section": None, "operation": None,
            "error_sentence": None, "original_sentence": None, "original_report": original}
    if case == "correct":
        return gold
    op_name = rng.choice(list(OPERATIONS))
    for section in (case, "impression" if case == "findings" else "findings"):
        text = getattr(report, section)
        candidates = sentences(text)
        rng.shuffle(candidates)
        for sentence in candidates:
            changed = OPERATIONS[op_name](sentence, rng)
            if changed and changed != sentence and text.count(sentence) == 1:
                corrupted = original.replace(
                    f"{section.upper()}: {text}",
                    f"{section.upper()}: {text.replace(sentence, changed)}",
                )
                return {
                    **gold,
                    "has_error": True,
                    "section": section,
                    "operation": op_name,
                    "error_sentence": changed,
                    "original_sentence": sentence,
                    "corrupted": corrupted,
                }
    return gold


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--archive", type=Path, required=True)
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--bench", type=Path, default=BENCH)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--limit", type=int, default=1000)
    args = parser.parse_args()

    dev_ids = {row["id"] for row in read_jsonl(args.bench / "iu_findings_dev.jsonl")}
    dev_ids |= {row["id"] for row in read_jsonl(args.bench / "iu_corrupt_dev.jsonl")}
    rng = random.Random(args.seed)
    pool = [
        r for r in read_archive(args.archive) if r.id not in dev_ids and r.findings and r.impression
    ]
    rng.shuffle(pool)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    with open(args.out_dir / "heldout_corrupt.jsonl", "w") as inputs, \
            open(args.out_dir / "heldout_corrupt_gold.jsonl", "w") as golds:
        for report in pool[: args.limit]:
            gold = corrupt(report, rng)
            text = gold.pop("corrupted", report.report)
            inputs.write(json.dumps({"id": report.id, "report": text}) + "\n")
            golds.write(json.dumps(gold) + "\n")
            key = gold["operation"] or "correct"
            counts[key] = counts.get(key, 0) + 1
    print(f"wrote {sum(counts.values())} reports: {counts}", file=sys.stderr)


if __name__ == "__main__":
    main()
