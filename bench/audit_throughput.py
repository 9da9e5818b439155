"""Batch-audit throughput and peak memory with the built-in engine (no Django), in one process.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/audit_throughput.py [--input ../shared/bench/iu_corrupt_dev.jsonl]
        [--reference ../shared/bench/iu_findings_dev.jsonl] [--repeat 2]

What ``manage.py audit_reports --reference`` does, timed by phase:

* start-up: loading the text embedder (all-MiniLM-L6-v2) and the rule engine (spaCy/medspacy);
* library: embedding the reference file's distinct sentences (no vector cache) and counting
  its sentences, words and phrases and the contexts of its finding wordings
  (``workers.audit.library_counts``, as ``audit_reports`` does before its audit);
* audit: every input report through correction, judge and the system combination, reports per
  second: the first pass (the engine's per-text caches empty, the reports' new sentences and
  explanations embedded) and, with ``--repeat``, further passes (caches warm); with each pass
  the process's CPU time per report (all threads: on a busy machine wall time says more about
  the other jobs than about the audit), the sentence model's calls and the load average;
* memory: peak resident memory of the process (ru_maxrss), and the Python allocations of one
  more audit pass with the engine's per-text caches emptied (tracemalloc; untimed, as tracing
  slows Python down).

Figures vary with the other load on the machine: run it alone, twice.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCH = ROOT.parent / "shared" / "bench"


class ModelCalls:
    """Counts the sentence model's calls and texts (a model call costs far more than a text)."""

    def __init__(self, embedder) -> None:
        self.calls = self.texts = 0
        self._embed = embedder.embed
        embedder.embed = self

    def __call__(self, texts):
        texts = list(texts)
        self.calls += 1
        self.texts += len(texts)
        return self._embed(texts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", default=str(BENCH / "iu_corrupt_dev.jsonl"))
    parser.add_argument("--reference", default=str(BENCH / "iu_findings_dev.jsonl"))
    parser.add_argument("--repeat", type=int, default=2, help="audit passes (default 2)")
    args = parser.parse_args()

    started = time.perf_counter()
    from workers.audit import batch
    from workers.audit.library_counts import count_library
    from workers.backends import registry
    from workers.combine import CombinationConfig
    from workers.library.vectors import SentenceVectors
    from workers.nlp import extract_findings
    from workers.nlp.caches import clear_caches

    registry.configure({})
    embedder = registry.text_embedder()
    embedder.embed(["warm up"])
    extract_findings("No pneumothorax.")
    startup = time.perf_counter() - started

    t = time.perf_counter()
    sentences = SentenceVectors(embedder)
    library = batch.reference_library(args.reference, sentences)
    count_library(library)
    library_time = time.perf_counter() - t
    distinct = len(sentences)

    records = batch.read_records(args.input)
    config = CombinationConfig()
    model = ModelCalls(embedder)
    passes = []
    for _ in range(max(1, args.repeat)):
        model.calls = model.texts = 0
        t, cpu = time.perf_counter(), time.process_time()
        lines = list(batch.audit_records(records, library=library, config=config,
                                         embed=sentences.embed))
        passes.append((time.perf_counter() - t, time.process_time() - cpu, model.calls,
                       model.texts, os.getloadavg()[0]))
    flagged = sum(line["has_error"] for line in lines)

    clear_caches()
    tracemalloc.start()
    list(batch.audit_records(records, library=library, config=config, embed=sentences.embed))
    _, python_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"start-up (embedder + rule engine): {startup:.1f} s")
    print(f"library: {len(library)} reports, {distinct} distinct sentences embedded and counted "
          f"in {library_time:.1f} s")
    for number, (seconds, cpu, calls, texts, load) in enumerate(passes, 1):
        state = "first pass" if number == 1 else f"pass {number} (warm caches)"
        print(f"audit, {state}: {len(records)} reports in {seconds:.1f} s = "
              f"{len(records) / seconds:.0f} reports/s; CPU {1000 * cpu / len(records):.1f} "
              f"ms/report (all threads); {calls} model calls for {texts} texts; "
              f"load average {load:.1f}")
    print(f"reports flagged: {flagged} of {len(records)}")
    end_to_end = startup + library_time + passes[0][0]
    print(f"end to end (start-up + library + first pass): {end_to_end:.1f} s = "
          f"{len(records) / end_to_end:.0f} reports/s")
    print(f"peak memory: {rss:.0f} MiB resident; an audit pass with empty engine caches "
          f"allocated at most {python_peak / 2**20:.0f} MiB of Python objects")


if __name__ == "__main__":
    main()
