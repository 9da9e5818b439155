"""Recall and precision of negated concepts: the one negation against medspacy's default ConText.

The sentences are our own (``bench/negation_sentences.jsonl``): clinical and radiology
wording as indications, histories, findings and impressions write it, each target with a gold
reading (negated, affirmed, uncertain, historical), with traps that look like a negation and
are none ("no increase in", "not only", "cannot be excluded", "gram negative"). Each target is
read by

* ours: ``workers.nlp.polarity.assertion_at`` (ConText with the rules of
  ``workers/nlp/rules/context_rules.tsv``);
* medspacy: ``medspacy.load()``'s default pipeline (PyRuSH sentences, ConText with the rule
  file medspacy ships), the gold targets given as the document's entities in place of the
  target matcher, so both read the same spans.

Prints recall, precision and F1 of "negated" on the two fixed halves of the set (the SHA-1 of
the id, as ``bench/dev_halves.py`` splits the dev sets: rules were read off half A, half B is
the check) and on the whole, the four-way accuracy (negated / uncertain / historical /
affirmed), and with ``--show`` each target a system reads wrongly. Asserts nothing.

    .venv/bin/python bench/negation_recall.py [--show ours|medspacy|both]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dev_halves import half  # noqa: E402 - bench/ is the script's folder

DATA = Path(__file__).with_name("negation_sentences.jsonl")
NEGATED, UNCERTAIN, HISTORICAL, AFFIRMED = "negated", "uncertain", "historical", "affirmed"


def load(path: Path = DATA) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    for row in rows:
        for t in row["targets"]:
            if row["text"][t["start"]:t["end"]] != t["text"]:
                raise ValueError(f"{row['id']}: {t['text']!r} is not at {t['start']}")
    return rows


def ours(rows: list[dict]) -> list[list[str]]:
    from workers.nlp.polarity import assertion_at

    out = []
    for row in rows:
        readings = []
        for t in row["targets"]:
            p = assertion_at(row["text"], t["start"], t["end"])
            readings.append(NEGATED if p.negated else UNCERTAIN if p.uncertain
                            else HISTORICAL if p.historical else AFFIRMED)
        out.append(readings)
    return out


def medspacy_default(rows: list[dict]) -> list[list[str]]:
    import medspacy  # noqa: PLC0415 - defer medspacy
    from loguru import logger  # noqa: PLC0415 - PyRuSH's debug log, read only with medspacy

    logger.disable("PyRuSH")
    nlp = medspacy.load()
    out = []
    for row in rows:
        doc = nlp.make_doc(row["text"])
        spans = [doc.char_span(t["start"], t["end"], label="TARGET", alignment_mode="expand")
                 for t in row["targets"]]
        for name, component in nlp.pipeline:
            if name == "medspacy_target_matcher":
                doc.ents = spans
            else:
                doc = component(doc)
        by_span = {(e.start_char, e.end_char): e for e in doc.ents}
        readings = []
        for span in spans:
            e = by_span[(span.start_char, span.end_char)]
            readings.append(NEGATED if e._.is_negated
                            else UNCERTAIN if e._.is_uncertain or e._.is_hypothetical
                            else HISTORICAL if e._.is_historical else AFFIRMED)
        out.append(readings)
    return out


def figures(pairs: list[tuple[str, str]]) -> str:
    tp = sum(1 for g, p in pairs if g == p == NEGATED)
    gold = sum(1 for g, _ in pairs if g == NEGATED)
    said = sum(1 for _, p in pairs if p == NEGATED)
    r = tp / gold if gold else 0.0
    p = tp / said if said else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    acc = sum(1 for g, q in pairs if g == q) / len(pairs) if pairs else 0.0
    return (f"recall={r:.3f} ({tp}/{gold}) precision={p:.3f} ({tp}/{said}) f1={f:.3f} "
            f"4-way accuracy={acc:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--show", choices=("ours", "medspacy", "both"),
                        help="list the targets a system reads wrongly")
    args = parser.parse_args()
    rows = load(Path(args.data))
    systems = {"ours": ours(rows), "medspacy": medspacy_default(rows)}
    n_targets = sum(len(r["targets"]) for r in rows)
    print(f"{len(rows)} sentences, {n_targets} targets "
          f"({sum(t['gold'] == NEGATED for r in rows for t in r['targets'])} negated)")
    for part in ("A", "B", "all"):
        for name, readings in systems.items():
            pairs = [(t["gold"], p) for row, rs in zip(rows, readings)
                     if part == "all" or half(row["id"]) == part
                     for t, p in zip(row["targets"], rs)]
            print(f"{part:3} {name:8} {figures(pairs)}")
    if args.show:
        for name, readings in systems.items():
            if args.show not in (name, "both"):
                continue
            print(f"\n{name}: wrong readings (half, id, cue, gold -> read, target, sentence)")
            for row, rs in zip(rows, readings):
                for t, p in zip(row["targets"], rs):
                    if p != t["gold"]:
                        print(f"  {half(row['id'])} {row['id']} [{row['cue']}] {t['gold']} -> "
                              f"{p}: {t['text']!r} in {row['text']!r}")


if __name__ == "__main__":
    main()
