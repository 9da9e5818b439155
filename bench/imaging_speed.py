"""Decode + preview time for a 2048 × 2048 12-bit chest radiograph, per transfer syntax.

Prints figures; asserts nothing. Run from the repository root:

    .venv/bin/python bench/imaging_speed.py [--repeat 5] [--size 2048] [--noise 0.002]

Each figure is the median over the repeats of one call, in milliseconds, on this machine:
read_dicom (parse, validate, decode, modality LUT, window, inversion), encode_png at 1024,
thumbnail at 256, every window preset rendered, and the appearance descriptor.
The phantom is far smoother than a real radiograph, so Gaussian noise (``--noise``, as a
fraction of full scale) stands in for quantum noise; without it lossless codecs compress
and decode unrealistically fast.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pydicom  # noqa: E402

from tests.support import dicom_factory as factory  # noqa: E402
from workers.imaging import (  # noqa: E402
    PRESETS,
    describe,
    encode_png,
    read_dicom,
    render,
    thumbnail,
)


def timed(function, repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--noise", type=float, default=0.002)
    args = parser.parse_args()

    print(f"python {platform.python_version()}, pydicom {pydicom.__version__}, "
          f"numpy {np.__version__}, {os.cpu_count()} CPUs, median of {args.repeat}")
    density = factory.chest_phantom(seed=1, rows=args.size, cols=args.size)
    density = density + np.random.default_rng(0).normal(0, args.noise, density.shape)
    pixels = factory.stored_values(density, bits=12)
    header = (f"{'transfer syntax':<18}{'file MB':>8}{'read_dicom':>12}{'preview':>9}"
              f"{'thumb':>7}{'read+prev':>11}{'6 presets':>11}{'describe':>10}  decoder")
    print(f"\n{args.size} x {args.size}, 12 bits stored, noise {args.noise:g} of full scale, "
          "times in ms")
    print(header)
    for compress in (None, "jpeg2000", "jpegls", "rle"):
        data = factory.make_dicom(pixels=pixels, compress=compress)
        # Each lambda runs inside timed(), within this iteration: binding late is intended.
        read_ms, image = timed(lambda: read_dicom(data), args.repeat)  # noqa: B023
        preview_ms, _ = timed(lambda: encode_png(image.pixels, max_side=1024),  # noqa: B023
                              args.repeat)
        thumb_ms, _ = timed(lambda: thumbnail(image.pixels), args.repeat)  # noqa: B023
        presets_ms, _ = timed(
            lambda: [render(image, name) for name in PRESETS],  # noqa: B023
            max(1, args.repeat // 2)
        )
        describe_ms, _ = timed(lambda: describe(image.pixels), args.repeat)  # noqa: B023
        name = compress or "uncompressed"
        print(f"{name:<18}{len(data) / 1e6:>8.2f}{read_ms:>12.0f}{preview_ms:>9.0f}{thumb_ms:>7.0f}"
              f"{read_ms + preview_ms + thumb_ms:>11.0f}{presets_ms:>11.0f}{describe_ms:>10.0f}  "
              f"{image.decoder}")


if __name__ == "__main__":
    main()
