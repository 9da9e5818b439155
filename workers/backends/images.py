"""Turning a study's images into what a model or an HTTP server takes."""
from __future__ import annotations

import base64
import io
from collections.abc import Callable
from typing import Any

import numpy as np
from PIL import Image


def to_uint8(pixels: np.ndarray) -> np.ndarray:
    pixels = np.asarray(pixels, dtype=np.float32)
    if pixels.ndim != 2:
        raise ValueError(f"expected a 2-D grayscale image, got shape {pixels.shape}")
    return np.round(np.clip(pixels, 0.0, 1.0) * 255.0).astype(np.uint8)


def to_pil_rgb(pixels: np.ndarray, max_side: int | None = None):
    """An RGB PIL image (gray replicated to three channels), shrunk so no side exceeds max_side."""

    image = Image.fromarray(to_uint8(pixels))  # uint8 2-D → mode "L"
    if max_side and max(image.size) > max_side:
        scale = max_side / max(image.size)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image.convert("RGB")


def to_png_data_url(pixels: np.ndarray, max_side: int | None = None) -> str:
    """A ``data:image/png;base64,...`` URL, the image form OpenAI-compatible servers accept."""
    buffer = io.BytesIO()
    to_pil_rgb(pixels, max_side).convert("L").save(buffer, format="PNG", optimize=False)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def study_content(images: list[Any], prompt: str,
                  image_part: Callable[[Any], dict[str, Any]]) -> list[dict[str, Any]]:
    """The user turn's content parts: each view's name, then its image, then the instruction."""
    parts: list[dict[str, Any]] = []
    for index, image in enumerate(images):
        label = image.view.strip() if image.view else f"image {index + 1}"
        parts.append({"type": "text", "text": f"View: {label}"})
        parts.append(image_part(image))
    parts.append({"type": "text", "text": prompt})
    return parts
