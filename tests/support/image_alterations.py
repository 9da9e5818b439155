"""Small, realistic alterations of a display image (float in [0, 1]) for robustness tests:
what happens to a radiograph between two exports of the same exposure."""
from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
from PIL import Image


def brightness_contrast(x: np.ndarray, gain: float = 0.85, offset: float = 0.08) -> np.ndarray:
    return np.clip(gain * x + offset, 0, 1).astype(np.float32)


def gamma(x: np.ndarray, value: float = 0.8) -> np.ndarray:
    return np.power(x, value).astype(np.float32)


def shift(x: np.ndarray, dy: int, dx: int) -> np.ndarray:
    """Move the content by (dy, dx) pixels, repeating the edge rows/columns into the gap."""
    out = np.roll(x, (dy, dx), axis=(0, 1))
    if dy > 0:
        out[:dy] = x[:1]
    elif dy < 0:
        out[dy:] = x[-1:]
    if dx > 0:
        out[:, :dx] = x[:, :1]
    elif dx < 0:
        out[:, dx:] = x[:, -1:]
    return out


def crop(x: np.ndarray, fraction: float = 0.05) -> np.ndarray:
    """Cut ``fraction`` of the height and width off every side."""
    rows, cols = x.shape
    dr, dc = int(rows * fraction), int(cols * fraction)
    return x[dr : rows - dr, dc : cols - dc]


def noise(x: np.ndarray, sigma: float = 0.03, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(x + rng.normal(0, sigma, x.shape), 0, 1).astype(np.float32)


def jpeg_roundtrip(x: np.ndarray, quality: int = 70) -> np.ndarray:
    buffer = io.BytesIO()
    Image.fromarray(np.rint(np.clip(x, 0, 1) * 255).astype(np.uint8)).save(
        buffer, format="JPEG", quality=quality
    )
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())), dtype=np.float32) / 255


def combined(x: np.ndarray) -> np.ndarray:
    """Contrast change, 3% crop, shift, noise and JPEG re-encoding together."""
    y = crop(brightness_contrast(x, 0.9, 0.05), 0.03)
    y = shift(y, 5, 5)
    return jpeg_roundtrip(noise(y, 0.02, seed=1))


def alterations(shape: tuple[int, int]) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    """Named alterations; shifts are about 3% of the image size."""
    dy, dx = max(1, shape[0] * 3 // 100), max(1, shape[1] * 3 // 100)
    return {
        "brightness_contrast": brightness_contrast,
        "gamma": gamma,
        "shift": lambda x: shift(x, dy, -dx),
        "crop": crop,
        "noise": noise,
        "jpeg": jpeg_roundtrip,
        "combined": combined,
    }
