"""What the reference indexes in the object store cost: publishing an image memory, a new host
pulling it, and the pull every image stage makes when nothing changed (one GET).

    python bench/index_store.py [--images 20000] [--repeat 200]

Against moto's S3 server on loopback (tests/support/object_store.py): the figures are the
protocol's cost on this machine, not a real bucket's network latency.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_django import setup_django
from tests.support import object_store
from tests.support.sockets import free_port


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=20_000)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    endpoint, stop = object_store.start(free_port())
    try:
        options = object_store.s3_options(endpoint)
        os.environ.update(RADREVIEW_MEDIA_STORE="s3", RADREVIEW_S3_ENDPOINT=endpoint,
                          RADREVIEW_S3_BUCKET=options["bucket_name"],
                          RADREVIEW_S3_ACCESS_KEY_ID=options["access_key"],
                          RADREVIEW_S3_SECRET_ACCESS_KEY=options["secret_key"])
        setup_django(prefix="radreview-bench-index-store-")
        run(args)
    finally:
        stop()


def run(args) -> None:
    root = Path(tempfile.mkdtemp(prefix="radreview-bench-hosts-"))
    try:
        measure(args, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def measure(args, root: Path) -> None:
    import numpy as np
    from django.conf import settings

    from radreview.library import image_memory, index_store
    from workers.imagememory import ImageMemory, MemoryImage, MemoryStudy, memory_dir

    settings.INDEX_DIR = root / "a"
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((args.images, args.dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memory = ImageMemory(memory_dir(settings.INDEX_DIR), **image_memory.options())
    memory.set_encoder(SimpleNamespace(name="bench", dim=args.dim, learned=False))
    studies = [MemoryStudy(i, f"s{i}", "bench", f"Report {i}.") for i in range(args.images)]
    memory.add(studies, [MemoryImage(i, i, "PA", f"{i}.dcm") for i in range(args.images)],
               vectors)

    started = time.perf_counter()
    with index_store.writing(index_store.IMAGE_MEMORY) as publish:
        memory.save()
        saved = time.perf_counter()
        publish()
    published = time.perf_counter()
    size = sum(p.stat().st_size for p in index_store.IMAGE_MEMORY.files().values())

    settings.INDEX_DIR = root / "b"
    started_pull = time.perf_counter()
    assert index_store.pull(index_store.IMAGE_MEMORY)
    pulled = time.perf_counter()
    unchanged = []
    for _ in range(args.repeat):
        tick = time.perf_counter()
        assert not index_store.pull(index_store.IMAGE_MEMORY)
        unchanged.append(time.perf_counter() - tick)
    unchanged.sort()

    print(f"image memory: {args.images} images x {args.dim}-d, {memory.index_kind} index, "
          f"{size / 1e6:.1f} MB in {len(index_store.IMAGE_MEMORY.files())} files")
    print(f"save (local)             {saved - started:7.3f} s")
    print(f"publish (upload+pointer) {published - saved:7.3f} s")
    print(f"pull on an empty host    {pulled - started_pull:7.3f} s")
    print(f"pull, pointer unchanged  median {statistics.median(unchanged) * 1e3:6.2f} ms, "
          f"p95 {unchanged[int(0.95 * (len(unchanged) - 1))] * 1e3:6.2f} ms "
          f"({args.repeat} pulls)")


if __name__ == "__main__":
    main()
