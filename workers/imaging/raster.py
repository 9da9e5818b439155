"""Read PNG and JPEG images (exported radiographs, screenshots of them) with Pillow.

The file is verified (PNG chunk checksums), then fully decoded, so a truncated or corrupt
file is refused at upload. Pillow's own decompression-bomb guard is turned into a refusal,
and images above :data:`~workers.imaging.source.MAX_PIXELS` are refused from their header
before decoding. EXIF orientation is applied. Colour images are converted to grayscale (ITU-R
601 luma): generic tools often save an exported radiograph as RGB. Animated PNGs are refused
like multi-frame DICOM.

Display pixels: 8-bit images are shown as they are (grey level / 255): a PNG or JPEG is already
a display image. 16-bit (and 32-bit) grayscale images get the robust percentile window used
for DICOM files without a VOI, because their useful range (often 10 or 12 bits) is unknown.
This module relies on Pillow's default ``ImageFile.LOAD_TRUNCATED_IMAGES = False``.
"""
from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from PIL import Image, ImageOps

from .display import linear_window, percentile_window
from .errors import ImagingError, MalformedImage, NotAnImage, UnsupportedImage
from .sniff import SNIFF_BYTES, describe_unknown, detect_kind
from .source import MAX_PIXELS, PixelGrid, Source, read_source

_FORMATS = {"PNG": "png", "JPEG": "jpeg", "MPO": "jpeg"}  # MPO: a camera JPEG with extras
_HIGH_DEPTH_MODES = ("I;16", "I;16B", "I;16L", "I;16N", "I", "F")


@dataclass(eq=False)
class RasterImage(PixelGrid):
    """A decoded PNG/JPEG image.

    ``pixels``: float32 in [0, 1], bright = dense for a normally exported radiograph.
    ``modality_values``: float32 grey levels as stored (0–255, or 0–65535 for 16-bit),
    for re-windowing. ``format``: "png" or "jpeg"; ``mode``: Pillow's original mode;
    ``bit_depth``: 8 or 16 (32 for 32-bit integer or float images); ``was_colour``: it had
    genuinely coloured pixels, now converted to grayscale.
    """

    kind: ClassVar[str] = "raster"
    invert: ClassVar[bool] = False

    pixels: np.ndarray
    modality_values: np.ndarray
    format: str
    mode: str
    bit_depth: int
    was_colour: bool


def read_raster(source: Source) -> RasterImage:
    """Verify and decode a PNG or JPEG file (bytes, path or binary file-like object)."""
    data = read_source(source)
    kind = detect_kind(data[:SNIFF_BYTES])
    if kind not in ("png", "jpeg"):
        if kind == "dicom":
            raise NotAnImage("This file is a DICOM file, not a PNG or JPEG image.")
        what = describe_unknown(data[:SNIFF_BYTES])
        raise NotAnImage(
            f"This file is not a PNG or JPEG image{': it is ' + what if what else ''}."
        )
    label = kind.upper()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = _open_verified(data, label)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise UnsupportedImage(
            f"The {label} image is too large to open safely "
            f"(more than the {MAX_PIXELS // 1_000_000}-megapixel limit)."
        ) from None
    except ImagingError:
        raise
    except Exception as exc:  # Pillow's decoders fail in many ways on a damaged file
        raise MalformedImage(
            f"The {label} file is damaged or truncated and cannot be decoded.",
            detail=f"{type(exc).__name__}: {str(exc)[:200]}",
        ) from None
    return _to_raster(image, kind)


def _open_verified(data: bytes, label: str) -> Image.Image:
    with Image.open(io.BytesIO(data)) as probe:
        if probe.format not in _FORMATS:
            raise NotAnImage(f"This file is not a PNG or JPEG image (it is {probe.format}).")
        width, height = probe.size
        if width * height > MAX_PIXELS:
            raise UnsupportedImage(
                f"The image is {width} × {height} pixels, more than the "
                f"{MAX_PIXELS // 1_000_000}-megapixel limit."
            )
        if probe.format == "PNG" and getattr(probe, "n_frames", 1) > 1:
            raise UnsupportedImage(
                "Animated PNG images are not supported: upload each view as its own image."
            )
        probe.verify()
    # verify() leaves the image unusable; decode a fresh one completely.
    image = Image.open(io.BytesIO(data))
    image.load()
    image = ImageOps.exif_transpose(image)
    return image


def _to_raster(image: Image.Image, kind: str) -> RasterImage:
    mode = image.mode
    if mode in _HIGH_DEPTH_MODES:
        values = np.asarray(image, dtype=np.float32)
        if values.ndim != 2:
            values = values.reshape(image.height, image.width)
        depth = 16 if mode.startswith("I;16") else 32
        pixels = linear_window(values, *percentile_window(values))
        return RasterImage(pixels, values, kind, mode, depth, was_colour=False)
    colour = False
    if mode not in ("1", "L", "LA", "La"):
        rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
        # Channels that differ beyond JPEG chroma noise: a genuinely colour picture.
        colour = bool((rgb.max(axis=2) - rgb.min(axis=2)).max() > 8)
    gray = image.convert("L")
    values = np.asarray(gray, dtype=np.float32)
    pixels = values * np.float32(1.0 / 255.0)
    return RasterImage(pixels, values, kind, mode, 8, was_colour=colour)
