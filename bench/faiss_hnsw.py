"""FAISS HNSW as the image memory uses it: recall@5 against exact search, query latency, build time.

    .venv/bin/python bench/faiss_hnsw.py                  # 100k random 512-d unit vectors
    .venv/bin/python bench/faiss_hnsw.py --million        # and 1M (about 2 GB of vectors;
                                                          # the build takes a while on 2 cores)
    .venv/bin/python bench/faiss_hnsw.py --sizes 20000 --ef-search 32,64,128

The index is ``workers.retrieval.index.VectorIndex`` with ``exact_below=0`` (HNSW from the
first vector; inner product on unit vectors = cosine), built with the settings' M and
efConstruction (32, 200 unless given). Ground truth: FAISS exact inner-product search.

Two kinds of query: *random* unit vectors (no true near neighbour: the hardest case for a
graph index in 512 dimensions, where all similarities crowd around 0), and *near copies*
(an indexed vector plus noise, cosine ≈ 0.9 to its source: what a query image with a similar
reference image looks like); for those, "source first" is how often the index returns the
source as the best hit (their other four exact neighbours are as random as in the first case).
Latency is one query at a time, as a study's view is searched.
Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def unit(rng: np.random.Generator, n: int, dim: int, chunk: int = 100_000) -> np.ndarray:
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, chunk):
        block = rng.standard_normal((min(chunk, n - start), dim), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start:start + len(block)] = block
    return out


def recall(found: np.ndarray, truth: np.ndarray, k: int) -> float:
    return float(np.mean([len(set(f[:k]) & set(t[:k])) / k for f, t in zip(found, truth)]))


def run(n: int, args) -> None:
    import faiss

    from workers.retrieval.index import HnswParams, VectorIndex

    rng = np.random.default_rng(n)
    started = time.perf_counter()
    data = unit(rng, n, args.dim)
    made = time.perf_counter() - started
    random_queries = unit(rng, args.queries, args.dim)
    picks = rng.choice(n, args.queries, replace=False)
    near = data[picks] + 0.5 / np.sqrt(args.dim) * rng.standard_normal(
        (args.queries, args.dim), dtype=np.float32)
    near /= np.linalg.norm(near, axis=1, keepdims=True)

    exact = faiss.IndexFlatIP(args.dim)
    exact.add(data)
    started = time.perf_counter()
    _, truth_random = exact.search(random_queries, args.k)
    _, truth_near = exact.search(near, args.k)
    exact_seconds = time.perf_counter() - started
    exact_latency = []
    for query in random_queries[:50]:
        t = time.perf_counter()
        exact.search(query[None], args.k)
        exact_latency.append(time.perf_counter() - t)
    del exact

    index = VectorIndex(args.dim, hnsw=HnswParams(m=args.m, ef_construction=args.ef_construction,
                                                  ef_search=args.ef_search[0]), exact_below=0)
    started = time.perf_counter()
    index.add(np.arange(n, dtype=np.int64), data)
    build = time.perf_counter() - started
    assert index.kind == "hnsw"
    print(f"\n{n:,} vectors × {args.dim} (made in {made:.1f} s); HNSW M={args.m}, "
          f"efConstruction={args.ef_construction}: built in {build:.1f} s "
          f"({n / build:,.0f} vectors/s, {faiss.omp_get_max_threads()} threads)")
    print(f"exact search: {1000 * np.median(exact_latency):.1f} ms median per query "
          f"(ground truth for {2 * args.queries} queries in {exact_seconds:.1f} s)")
    print(f"{'efSearch':>8} {'recall@5 random':>16} {'recall@5 near copy':>19} "
          f"{'source first':>13} {'median ms':>10} {'p95 ms':>8}")
    inner = faiss.downcast_index(index._index.index)
    for ef in args.ef_search:
        inner.hnsw.efSearch = ef
        found_random = np.array([[h.id for h in hits] for hits in
                                 index.search(random_queries, args.k)])
        found_near = np.array([[h.id for h in hits] for hits in index.search(near, args.k)])
        latency = []
        for query in random_queries[:args.latency_queries]:
            t = time.perf_counter()
            index.search(query[None], args.k)
            latency.append(time.perf_counter() - t)
        print(f"{ef:>8} {recall(found_random, truth_random, args.k):>16.3f} "
              f"{recall(found_near, truth_near, args.k):>19.3f} "
              f"{float(np.mean(found_near[:, 0] == picks)):>13.3f} "
              f"{1000 * np.median(latency):>10.2f} {1000 * np.percentile(latency, 95):>8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000",
                        help="comma-separated library sizes (default 100000)")
    parser.add_argument("--million", action="store_true", help="also 1,000,000 vectors")
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--latency-queries", type=int, default=300)
    parser.add_argument("--m", type=int, default=int(os.environ.get("RADREVIEW_HNSW_M", 32)))
    parser.add_argument("--ef-construction", type=int,
                        default=int(os.environ.get("RADREVIEW_HNSW_EF_CONSTRUCTION", 200)))
    parser.add_argument("--ef-search", default=os.environ.get("RADREVIEW_HNSW_EF_SEARCH",
                                                              "64,128,256"),
                        help="comma-separated efSearch values (the first is the build's)")
    args = parser.parse_args()
    args.ef_search = [int(v) for v in str(args.ef_search).split(",")]
    sizes = [int(v) for v in args.sizes.split(",") if v]
    if args.million and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    print(f"FAISS HNSW bench: k={args.k}, {args.queries} queries per kind, "
          f"{os.cpu_count()} CPUs visible")
    for n in sizes:
        run(n, args)


if __name__ == "__main__":
    main()
