"""How far the built-in appearance descriptor keeps an altered copy from other images.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/imaging_descriptor.py [--images 21] [--rows 288] [--cols 256]

For every synthetic chest phantom (seed 0..images-1) and every alteration of
tests/support/image_alterations.py, the margin is cos(copy, source) minus the highest
cos(copy, other image); positive means the source is retrieved first. Also printed: the
similarity of the copy to its source, and how similar the different phantoms are to each
other (they share one anatomy layout, so this is high, like real chest radiographs).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from tests.support.dicom_factory import chest_phantom  # noqa: E402
from tests.support.image_alterations import alterations  # noqa: E402
from workers.imaging import APPEARANCE_DESCRIPTOR_NAME, describe  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=21)
    parser.add_argument("--rows", type=int, default=288)
    parser.add_argument("--cols", type=int, default=256)
    args = parser.parse_args()

    shape = (args.rows, args.cols)
    images = [chest_phantom(seed, *shape).astype(np.float32) for seed in range(args.images)]
    start = time.perf_counter()
    library = np.stack([describe(image) for image in images])
    per_image_ms = (time.perf_counter() - start) * 1000 / len(images)

    between = library @ library.T
    off = between[~np.eye(len(images), dtype=bool)]
    print(f"{APPEARANCE_DESCRIPTOR_NAME}: {len(images)} phantoms {shape[0]}x{shape[1]}, "
          f"{per_image_ms:.1f} ms per descriptor")
    print(f"cosine between different phantoms: mean {off.mean():.4f}, max {off.max():.4f}")
    print(f"\n{'alteration':<22}{'own cos':>9}{'min margin':>12}{'mean margin':>13}{'top-1':>8}")
    worst = np.inf
    for name, alter in alterations(shape).items():
        margins, own = [], []
        for source, image in enumerate(images):
            sims = library @ describe(alter(image))
            margins.append(sims[source] - np.delete(sims, source).max())
            own.append(sims[source])
        margins = np.array(margins)
        worst = min(worst, margins.min())
        print(f"{name:<22}{np.mean(own):>9.4f}{margins.min():>12.4f}{margins.mean():>13.4f}"
              f"{(margins > 0).mean():>8.0%}")
    print(f"\nworst margin over all alterations and sources: {worst:.4f} "
          f"({worst / (1 - off.mean()):.0%} of the gap between 1 and the mean cross-image cosine)")


if __name__ == "__main__":
    main()
