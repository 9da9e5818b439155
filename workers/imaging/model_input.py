"""Square inputs for image encoders, from display pixels (float [0, 1], bright = dense).

Letterboxing is the default: the whole image is scaled so its longer side fits, and the
short side is padded with black (0, the value of air and of the unexposed border of a
radiograph). Centre-cropping would cut the costophrenic angles or apices off a tall or wide
radiograph, the very places small effusions and pneumothoraces show. ``fit="crop"`` is there
for encoders trained on centre crops.

Mean/std normalisation belongs to the encoder backend (BiomedCLIP's open_clip transform has
its own); these functions stop at [0, 1] (arrays) or 0–255 (PIL images).
"""
from __future__ import annotations

from typing import Literal

import numpy as np
from PIL import Image

from .display import as_unit_float, to_uint8

Fit = Literal["letterbox", "crop"]


def fit_square(pixels: np.ndarray, size: int = 224, fit: Fit = "letterbox") -> np.ndarray:
    """``pixels`` (float in [0, 1] or uint8) resampled (bicubic, antialiased) onto a
    ``size`` × ``size`` float32 grid in [0, 1]."""
    pixels = as_unit_float(pixels)
    if pixels.ndim != 2:
        raise ValueError(f"expected a 2-D grayscale array, got shape {pixels.shape}")
    if fit not in ("letterbox", "crop"):
        raise ValueError(f"fit must be 'letterbox' or 'crop', not {fit!r}")
    height, width = pixels.shape
    scale = (max if fit == "crop" else min)(size / width, size / height)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))
    image = Image.fromarray(np.ascontiguousarray(pixels)).resize(
        (new_w, new_h), Image.Resampling.BICUBIC, reducing_gap=2.0
    )
    resized = np.clip(np.asarray(image, dtype=np.float32), 0.0, 1.0)
    out = np.zeros((size, size), dtype=np.float32)
    if fit == "letterbox":
        top, left = (size - new_h) // 2, (size - new_w) // 2
        out[top : top + new_h, left : left + new_w] = resized
    else:
        top, left = (new_h - size) // 2, (new_w - size) // 2
        out[:, :] = resized[top : top + size, left : left + size]
    return out


def to_model_input(
    pixels: np.ndarray, size: int = 224, *, fit: Fit = "letterbox", channels: int = 3
) -> np.ndarray:
    """float32 array of shape (channels, size, size) in [0, 1], grey replicated per channel."""
    square = fit_square(pixels, size, fit)
    return np.repeat(square[None, :, :], channels, axis=0)


def to_pil_rgb(
    pixels: np.ndarray, size: int | None = None, *, fit: Fit = "letterbox"
) -> Image.Image:
    """An RGB PIL image (grey in all three channels) for transforms that expect one, such as
    open_clip's preprocessing; squared to ``size`` first when given."""
    array = as_unit_float(pixels)
    if size is not None:
        array = fit_square(array, size, fit)
    return Image.fromarray(to_uint8(array)).convert("RGB")
