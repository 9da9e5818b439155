"""Window/level presets for the review page.

Radiographs have no absolute intensity scale (no Hounsfield units: a detector value depends
on the exposure, the processing and the vendor), so the presets other than "default" are
defined by percentiles of the image's own modality values, oriented bright = dense: a "lung"
window spreads the darker part of the histogram over the grey scale, a "soft tissue" window
the denser part. The review page also needs a manual window; :func:`render_window` takes one
in modality units, and :func:`window_for_preset` tells what centre/width a preset chose, so a
slider can start from it.

Every function takes a :class:`~workers.imaging.dicom.DicomImage` or
:class:`~workers.imaging.raster.RasterImage` (re-windowed from its ``modality_values``, with
MONOCHROME1 inversion) or a bare 2-D array of intensities (bright = dense; its "default" is
the robust 0.5–99.5 percentile window, since an array carries no VOI of its own).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

import numpy as np
from PIL import Image, ImageFilter

from .display import ROBUST_PERCENTILES, linear_window, percentile_window, to_uint8

if TYPE_CHECKING:
    from .dicom import DicomImage
    from .raster import RasterImage

ImageLike = Union["DicomImage", "RasterImage", np.ndarray]


@dataclass(frozen=True)
class WindowPreset:
    """A window from two percentiles of the image's intensities (None, None: the file's own),
    then an optional gamma (>1 darkens mid-greys) and unsharp masking."""

    name: str
    label: str
    description: str
    low_percentile: float | None
    high_percentile: float | None
    gamma: float = 1.0
    sharpen: bool = False


PRESETS: dict[str, WindowPreset] = {
    preset.name: preset
    for preset in (
        WindowPreset(
            "default", "As acquired",
            "The window stored in the file (VOI LUT, else window centre/width); without one, "
            "the 0.5th to 99.5th percentile of the image.",
            None, None,
        ),
        WindowPreset(
            "full_range", "Full range",
            "Darkest to brightest pixel, nothing clipped; flat-looking but hides nothing.",
            0.0, 100.0,
        ),
        WindowPreset(
            "lung", "Lung",
            "The darker part of the histogram (1st to 75th percentile: air, lung) spread over "
            "the grey scale for parenchyma, vessels and pleural lines; dense tissue turns white.",
            1.0, 75.0,
        ),
        WindowPreset(
            "soft_tissue", "Soft tissue",
            "The denser part (30th to 99.5th percentile) for the mediastinum, heart borders, "
            "retrocardiac and subdiaphragmatic regions, lines and tubes; lung turns black.",
            30.0, 99.5,
        ),
        WindowPreset(
            "bone", "Bone",
            "A wide window (10th to 99.9th percentile) with a gamma of 1.4 and unsharp masking "
            "that bring out cortical edges of ribs, clavicles and spine.",
            10.0, 99.9, gamma=1.4, sharpen=True,
        ),
        WindowPreset(
            "high_contrast", "High contrast",
            "A narrow window on the middle of the histogram (5th to 95th percentile).",
            5.0, 95.0,
        ),
    )
}


def get_preset(preset: str | WindowPreset) -> WindowPreset:
    if isinstance(preset, WindowPreset):
        return preset
    try:
        return PRESETS[preset]
    except KeyError:
        raise ValueError(
            f"unknown window preset {preset!r}; expected one of {list(PRESETS)}"
        ) from None


def apply_preset(image: ImageLike, preset: str | WindowPreset = "default") -> np.ndarray:
    """The image under a preset, float32 in [0, 1], bright = dense."""
    chosen = get_preset(preset)
    if chosen.low_percentile is None or chosen.high_percentile is None:
        if isinstance(image, np.ndarray):
            values = np.asarray(image, dtype=np.float32)
            return linear_window(values, *percentile_window(values, *ROBUST_PERCENTILES))
        out = image.pixels
    else:
        values = _oriented(image)
        low, high = percentile_window(values, chosen.low_percentile, chosen.high_percentile)
        out = linear_window(values, low, high)
    if chosen.gamma != 1.0:
        out = np.power(out, np.float32(chosen.gamma), dtype=np.float32)
    return out


def render(image: ImageLike, preset: str | WindowPreset = "default") -> np.ndarray:
    """The image under a preset as an 8-bit grayscale array (uint8, same shape)."""
    chosen = get_preset(preset)
    out = to_uint8(apply_preset(image, chosen))
    if chosen.sharpen:
        radius = max(1.0, max(out.shape) / 256)
        sharpened = Image.fromarray(out).filter(
            ImageFilter.UnsharpMask(radius=radius, percent=120, threshold=2)
        )
        out = np.asarray(sharpened)
    return out


def render_all(image: ImageLike) -> dict[str, np.ndarray]:
    """Every preset, by name."""
    return {name: render(image, name) for name in PRESETS}


def render_window(image: ImageLike, center: float, width: float) -> np.ndarray:
    """A manual window in modality units (as the file's Window Center/Width), as uint8.
    For a MONOCHROME1 image the result is inverted like the default display."""
    if width <= 0:
        raise ValueError("window width must be positive")
    values, invert = _values(image)
    out = linear_window(values, center - width / 2, center + width / 2)
    if invert:
        out = np.subtract(1.0, out, dtype=np.float32)
    return to_uint8(out)


def window_for_preset(image: ImageLike, preset: str | WindowPreset) -> tuple[float, float] | None:
    """(center, width) in modality units that a percentile preset picks for this image;
    None for "default" (whose window may be a VOI LUT, not a centre/width)."""
    chosen = get_preset(preset)
    if chosen.low_percentile is None or chosen.high_percentile is None:
        return None
    values, invert = _values(image)
    oriented = -values if invert else values
    low, high = percentile_window(oriented, chosen.low_percentile, chosen.high_percentile)
    if invert:
        low, high = -high, -low
    return (low + high) / 2, high - low


def _values(image: ImageLike) -> tuple[np.ndarray, bool]:
    if isinstance(image, np.ndarray):
        return np.asarray(image, dtype=np.float32), False
    return image.modality_values, bool(image.invert)


def _oriented(image: ImageLike) -> np.ndarray:
    """Intensities with bright = dense, so that percentile windows need no inversion."""
    values, invert = _values(image)
    return np.negative(values) if invert else values
