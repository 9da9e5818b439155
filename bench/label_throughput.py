"""Labeling throughput and peak memory of the built-in language engine, in one process.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/label_throughput.py [--input ../shared/bench/iu_findings_dev.jsonl]
                                              [--samples 10] [--contexts]

Figures, each on an empty cache (the engine caches per report text):

* start-up: importing the engine and building its one index of ConText cues (paid once;
  spaCy and medspacy are not imported);
* labeling: extract_findings + chexpert_labels over every report, reports per second;
* of which ConText (tokenize, match cues, scope) and the rest (sections, vocabulary
  matching, attributes, normal statements, labels);
* audit: what a RadFlag batch audit asks of the engine per report: labels, graph, key
  phrases, categories, and ``entail`` of every sentence against ``--samples`` other reports
  (stand-ins for the sampled reports);
* peak resident memory of the process (ru_maxrss) and the Python allocations of labeling
  (tracemalloc).

``--contexts`` also times medspacy's own default configuration (sentencizer + TargetMatcher +
default ConText rules via ``nlp.pipe``) on the same reports, for comparison.
"""
from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DEFAULT_INPUT = ROOT.parent / "shared" / "bench" / "iu_findings_dev.jsonl"


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--input", default=str(DEFAULT_INPUT))
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--contexts", action="store_true",
                        help="also time medspacy's default pipeline for comparison")
    args = parser.parse_args()

    started = time.perf_counter()
    from workers.nlp.batch import compose_report, read_records
    from workers.nlp.caches import clear_caches
    imported = time.perf_counter() - started

    with open(args.input, encoding="utf-8") as f:
        reports = [compose_report(r) for r in read_records(f, args.input)]
    n = len(reports)
    print(f"{n} reports from {args.input}; Python {platform.python_version()}, "
          f"{platform.machine()}, one process")

    started = time.perf_counter() - imported  # the batch module's imports count too
    from workers.nlp import context
    from workers.nlp.categories import category_of
    from workers.nlp.entailment import entail
    from workers.nlp.findings import extract_findings
    from workers.nlp.graph import extract_graph
    from workers.nlp.labels import chexpert_labels
    from workers.nlp.phrases import key_phrases
    from workers.nlp.sections import parse_report

    context.cue_index()
    rss_after_startup = peak_rss_mib()
    print(f"start-up (imports + ConText cue index): {time.perf_counter() - started:.2f} s")

    # labeling, with ConText timed on the side
    spent = [0.0]
    original = context.assert_targets

    def timed_assert(*a, **k):
        t = time.perf_counter()
        try:
            return original(*a, **k)
        finally:
            spent[0] += time.perf_counter() - t

    clear_caches()
    context.assert_targets = timed_assert
    import workers.nlp.findings as findings_module
    findings_module.ctx.assert_targets = timed_assert
    t = time.perf_counter()
    for report in reports:
        chexpert_labels(extract_findings(report))
    elapsed = time.perf_counter() - t
    findings_module.ctx.assert_targets = original
    context.assert_targets = original
    rest = elapsed - spent[0]
    print(f"labeling: {n / elapsed:.0f} reports/s ({1000 * elapsed / n:.2f} ms/report; "
          f"ConText {1000 * spent[0] / n:.2f} ms, the rest {1000 * rest / n:.2f} ms)")

    # a RadFlag-style audit of every report
    clear_caches()
    k = min(args.samples, n - 1)
    t = time.perf_counter()
    calls = 0
    for i, report in enumerate(reports):
        chexpert_labels(extract_findings(report))
        extract_graph(report)
        key_phrases(report)
        samples = [reports[(i + j) % n] for j in range(1, k + 1)]
        for sentence in parse_report(report).sentences:
            category_of(sentence.text)
            for sample in samples:
                entail(sentence.text, sample)
                calls += 1
    elapsed = time.perf_counter() - t
    print(f"audit ({k} samples, {calls} entail calls): {n / elapsed:.0f} reports/s "
          f"({1000 * elapsed / n:.2f} ms/report, {1e6 * elapsed / max(calls, 1):.0f} µs/entail "
          f"incl. extraction of new texts)")

    if args.contexts:
        time_medspacy_default(reports)

    # Python allocations of the labeling pass itself (caches included), apart from the
    # libraries' import footprint; tracemalloc slows the pass, so it runs on its own
    import tracemalloc

    clear_caches()
    tracemalloc.start()
    for report in reports:
        chexpert_labels(extract_findings(report))
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"peak memory: {peak_rss_mib():.0f} MiB max RSS of the process (after start-up: "
          f"{rss_after_startup:.0f} MiB: the interpreter and the engine's modules); "
          f"labeling itself allocates at most "
          f"{traced_peak / 2**20:.1f} MiB (tracemalloc, caches included)")


def time_medspacy_default(reports: list[str]) -> None:
    """medspacy as its README sets it up: sentencizer, TargetMatcher with a few targets,
    default ConText rules, documents through nlp.pipe."""
    import logging

    logging.getLogger("PyRuSH").disabled = True
    import spacy
    from medspacy.ner import TargetRule

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    matcher = nlp.add_pipe("medspacy_target_matcher")
    matcher.add([TargetRule(term, "FINDING") for term in (
        "pneumothorax", "pleural effusion", "effusion", "consolidation", "cardiomegaly",
        "opacity", "edema", "atelectasis", "pneumonia", "fracture", "nodule", "mass")])
    nlp.add_pipe("medspacy_context")
    t = time.perf_counter()
    for _ in nlp.pipe(reports, batch_size=64):
        pass
    elapsed = time.perf_counter() - t
    print(f"medspacy default pipeline (sentencizer + TargetMatcher + default ConText, nlp.pipe): "
          f"{len(reports) / elapsed:.0f} reports/s")


if __name__ == "__main__":
    main()
