"""Image-study pipeline time with the built-in backends, stage by stage (no database, no worker).

    .venv/bin/python bench/image_pipeline.py          # 100 reference studies, 10 queries
    .venv/bin/python bench/image_pipeline.py --studies 500 --size 2048 --queries 5

A synthetic reference library (chest phantoms, a frontal and a lateral DICOM view per study,
the ten report types of the tests in turn) is imported into an image memory with the built-in
appearance descriptor, the rule extractor and all-MiniLM-L6-v2; then each query study (two
DICOM views, a blend of two reference studies plus noise, no report) goes through what the
worker does with the built-in backends:

  ingest     read both DICOM files, 1024-px previews and thumbnails
  sample     the built-in retrieval generator: the candidate at 0.1 and 10 samples at 1.0
  parse      sentences and findings of the candidate
  radflag    support of every candidate sentence against the 10 samples (rule engine)
  vrag       retrieval, entity probing, detections, rewrite
  rarrg      key-phrase retrieval, the draft, unsupported sentences

Medians over the queries, in milliseconds; the first query (model and spaCy loading) is
reported apart. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--studies", type=int, default=100)
    parser.add_argument("--queries", type=int, default=10)
    parser.add_argument("--size", type=int, default=1024, help="image side in pixels")
    args = parser.parse_args()

    from tests.support import dicom_factory as dicom
    from tests.workers.imagememory.library_factory import REPORTS
    from workers import imaging, nlp
    from workers.backends import ImageInput
    from workers.backends.builtin import AppearanceDescriptorEncoder, RuleExtractor
    from workers.backends.sentence_embedder import (
        BUILTIN_EMBEDDER_NAME,
        SentenceTransformerEmbedder,
        builtin_model_path,
    )
    from workers.imagememory import (
        ImageMemory,
        LibraryImage,
        LibraryStudy,
        QueryImage,
        add_to_memory,
        memory_dir,
    )
    from workers.rarrg.generator import load_builtin_generator
    from workers.rarrg.run import run_rarrg
    from workers.study import StudyContext
    from workers.study.images import StudyImages
    from workers.vrag.run import run_vrag

    encoder, extractor = AppearanceDescriptorEncoder(), RuleExtractor()
    embedder = SentenceTransformerEmbedder(builtin_model_path(), setting="bench", device="cpu",
                                           name=BUILTIN_EMBEDDER_NAME)
    work = Path(tempfile.mkdtemp(prefix="radreview-bench-"))
    size = args.size

    def density(seed: int, lateral: bool) -> np.ndarray:
        d = dicom.chest_phantom(seed=seed, rows=size, cols=size)
        return np.ascontiguousarray(np.rot90(d) * 0.8 + 0.1) if lateral else d

    started = time.perf_counter()
    studies, image_id = [], 0
    for index in range(args.studies):
        images = []
        for view, lateral in (("PA", False), ("LATERAL", True)):
            image_id += 1
            path = work / "library" / f"{index}-{view}.dcm"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(dicom.make_dicom(density=density(1000 + index, lateral), view=view,
                                              rows=size, cols=size))
            images.append(LibraryImage(image_id, str(path), "dicom", view))
        studies.append(LibraryStudy(index + 1, f"ref-{index + 1}", "bench",
                                    REPORTS[index % len(REPORTS)], tuple(images)))
    made = time.perf_counter() - started
    index_dir = work / "indexes"
    memory = ImageMemory(memory_dir(index_dir))
    started = time.perf_counter()
    add_to_memory(memory, studies, encoder=encoder, extractor=extractor, embedder=embedder)
    memory.save()
    built = time.perf_counter() - started
    print(f"Library: {args.studies} studies × 2 views of {size}×{size} px (files made in "
          f"{made:.1f} s); imported into the image memory in {built:.1f} s "
          f"({1000 * built / (2 * args.studies):.0f} ms per image: decode, descriptor, key "
          f"phrases, entities, phrase vectors)")

    rng = np.random.default_rng(0)
    timings: dict[str, list[float]] = {}
    first: dict[str, float] = {}
    for q in range(args.queries):
        a, b = rng.choice(args.studies, 2, replace=False)
        paths = []
        for view, lateral in (("PA", False), ("LATERAL", True)):
            mix = 0.5 * density(1000 + a, lateral) + 0.5 * density(1000 + b, lateral)
            mix = np.clip(mix + rng.normal(0, 0.01, mix.shape), 0, 1)
            path = work / "queries" / f"{q}-{view}.dcm"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(dicom.make_dicom(density=mix, view=view, rows=size, cols=size))
            paths.append((view, path))
        times: dict[str, float] = {}

        t = time.perf_counter()
        decoded = [(view, imaging.read_dicom(path)) for view, path in paths]
        for _, image in decoded:
            imaging.encode_png(image.pixels)
            imaging.thumbnail(image.pixels)
        times["ingest"] = time.perf_counter() - t

        t = time.perf_counter()
        generator = load_builtin_generator(index_dir, encoder=encoder)
        inputs = [ImageInput(image.pixels, view) for view, image in decoded]
        candidate = generator.generate(inputs, "", temperature=0.1, n=1)[0]
        samples = generator.generate(inputs, "", temperature=1.0, n=10)
        times["sample"] = time.perf_counter() - t

        t = time.perf_counter()
        parsed = nlp.parse_report(candidate)
        nlp.findings_by_sentence(parsed)
        times["parse"] = time.perf_counter() - t

        t = time.perf_counter()
        for sentence in parsed.sentences:
            for sample in samples:
                nlp.entail(sentence.text, sample)
        times["radflag"] = time.perf_counter() - t

        query = tuple(QueryImage(str(path), "dicom", view) for view, path in paths)
        t = time.perf_counter()
        # one context per stage, as the pipeline builds them
        run_vrag(StudyContext(candidate, images=StudyImages(query, index_dir=str(index_dir))),
                 image_encoder=encoder, extractor=extractor)
        times["vrag"] = time.perf_counter() - t

        t = time.perf_counter()
        run_rarrg(StudyContext(candidate, images=StudyImages(query, index_dir=str(index_dir))),
                  image_encoder=encoder, text_embedder=embedder)
        times["rarrg"] = time.perf_counter() - t
        times["total"] = sum(times.values())
        for stage, seconds in times.items():
            if q == 0:
                first[stage] = seconds
            else:
                timings.setdefault(stage, []).append(seconds)

    print(f"\nPer image study (2 DICOM views of {size}×{size}), milliseconds; median of "
          f"{args.queries - 1} studies after the first:")
    print(f"{'stage':<8} {'median':>8} {'max':>8} {'first':>8}")
    for stage, values in timings.items():
        print(f"{stage:<8} {1000 * statistics.median(values):>8.0f} "
              f"{1000 * max(values):>8.0f} {1000 * first[stage]:>8.0f}")


if __name__ == "__main__":
    main()
