"""From stored pixel values to a display image, in the order DICOM defines (PS3.4 N.2.1).

1. Modality LUT: the Modality LUT Sequence or Rescale Slope/Intercept
   (``pydicom.pixels.apply_modality_lut``) turns stored values into modality values.
2. VOI LUT: the VOI LUT Sequence, else Window Center/Width with the file's VOI LUT Function
   (``pydicom.pixels.apply_voi_lut``; the first of several windows). A file with neither gets
   a robust window from the 0.5th to the 99.5th percentile of its modality values, so a few
   saturated or dead pixels do not flatten the contrast.
3. Inversion: MONOCHROME1 (and MONOCHROME2 with Presentation LUT Shape INVERSE) is inverted,
   so the result is bright = dense (bone white) whatever the photometric interpretation.

The result is float32 in [0, 1]. The output range of step 2 is normalised to [0, 1] from what
the VOI transform itself can produce: the smallest and largest entries of a VOI LUT, or the
output range pydicom's windowing maps to (found by windowing two far-out values).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from pydicom import Dataset
from pydicom.pixels import apply_modality_lut, apply_voi, apply_windowing

#: Percentiles of the default window when the file carries no VOI.
ROBUST_PERCENTILES = (0.5, 99.5)

# Percentiles are taken on a strided subsample: plenty of samples, a fraction of the cost.
_MAX_PERCENTILE_SAMPLES = 1 << 20


@dataclass(frozen=True)
class DisplayResult:
    """The display image and how it was made."""

    pixels: np.ndarray  # float32 in [0, 1], bright = dense
    modality_values: np.ndarray  # float32, after step 1
    invert: bool  # step 3 applied
    voi: str  # "voi_lut", "window" or "percentile"


def needs_inversion(ds: Dataset) -> bool:
    """Whether low values are white: MONOCHROME1, or MONOCHROME2 with an INVERSE Presentation
    LUT Shape. (Projection radiography files pair MONOCHROME1 with INVERSE; that is one
    inversion, not two.)"""
    photometric = str(ds.get("PhotometricInterpretation", "")).strip().upper()
    if photometric == "MONOCHROME1":
        return True
    shape = str(ds.get("PresentationLUTShape", "") or "").strip().upper()
    return photometric == "MONOCHROME2" and shape == "INVERSE"


def modality_values(stored: np.ndarray, ds: Dataset) -> np.ndarray:
    """Step 1: stored values to modality values (float32)."""
    return np.asarray(apply_modality_lut(stored, ds), dtype=np.float32)


def percentile_window(
    values: np.ndarray, low: float = ROBUST_PERCENTILES[0], high: float = ROBUST_PERCENTILES[1]
) -> tuple[float, float]:
    """The values at two percentiles of ``values`` (on a subsample for large images)."""
    flat = values.reshape(-1)
    stride = max(1, flat.size // _MAX_PERCENTILE_SAMPLES)
    lo, hi = np.percentile(flat[::stride], [low, high])
    return float(lo), float(hi)


def linear_window(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Map ``low``..``high`` linearly to 0..1, clipping outside (float32)."""
    if not high > low:
        # A flat image: show mid-grey rather than divide by zero.
        return np.where(values > low, 1.0, np.where(values < low, 0.0, 0.5)).astype(np.float32)
    out = (np.asarray(values, dtype=np.float32) - np.float32(low)) * np.float32(1.0 / (high - low))
    return np.clip(out, 0.0, 1.0, out=out)


def file_voi(values: np.ndarray, ds: Dataset) -> tuple[np.ndarray, str] | None:
    """Step 2 from the file's own VOI module, normalised to [0, 1]; None when the file has
    no usable VOI LUT or window (a window of width < 1, an unknown VOI LUT Function, ...)."""
    lut = ds.get("VOILUTSequence")
    if lut and _usable_lut(lut[0]):
        indices = np.rint(values).astype(np.int64)
        try:
            out = apply_voi(indices, ds).astype(np.float32)
            descriptor = lut[0].LUTDescriptor
            first, entries = int(descriptor[1]), int(descriptor[0]) or 65536
            table = apply_voi(np.arange(first, first + entries, dtype=np.int64), ds)
            lo, hi = float(table.min()), float(table.max())
        except (ValueError, TypeError, IndexError, NotImplementedError, AttributeError):
            pass
        else:
            return linear_window(out, lo, hi), "voi_lut"
    if ds.get("WindowCenter") is not None and ds.get("WindowWidth") is not None:
        try:
            with np.errstate(over="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = apply_windowing(values.astype(np.float64), ds)
                # What windowing maps far-below and far-above values to: its output range.
                lo, hi = apply_windowing(np.array([-1e12, 1e12]), ds)
        except (ValueError, TypeError, IndexError, AttributeError, ZeroDivisionError):
            return None
        return linear_window(out, float(lo), float(hi)), "window"
    return None


def _usable_lut(item: Dataset) -> bool:
    descriptor = item.get("LUTDescriptor")
    return descriptor is not None and len(descriptor) == 3 and item.get("LUTData") is not None


def display_pixels(stored: np.ndarray, ds: Dataset) -> DisplayResult:
    """Steps 1–3 for one decoded frame."""
    modality = modality_values(stored, ds)
    voi = file_voi(modality, ds)
    if voi is None:
        pixels, source = linear_window(modality, *percentile_window(modality)), "percentile"
    else:
        pixels, source = voi
    invert = needs_inversion(ds)
    if invert:
        pixels = np.subtract(1.0, pixels, dtype=np.float32)
    return DisplayResult(pixels.astype(np.float32, copy=False), modality, invert, source)


def as_unit_float(pixels: np.ndarray) -> np.ndarray:
    """Display pixels as float32 in [0, 1]: uint8 is divided by 255, floats are clipped."""
    pixels = np.asarray(pixels)
    if pixels.dtype == np.uint8:
        return pixels.astype(np.float32) * np.float32(1.0 / 255.0)
    return np.clip(pixels.astype(np.float32, copy=False), 0.0, 1.0)


def to_uint8(pixels: np.ndarray) -> np.ndarray:
    """Float display pixels in [0, 1] to 8-bit grey levels (uint8 passes through)."""
    pixels = np.asarray(pixels)
    if pixels.dtype == np.uint8:
        return pixels
    scaled = np.clip(pixels, 0.0, 1.0) * np.float32(255.0)
    return np.rint(scaled).astype(np.uint8)
