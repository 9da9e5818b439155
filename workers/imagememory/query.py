"""Query images: decode a study's files to display pixels and embed them with the encoder role."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class QueryImage:
    """One view of a study to search with. ``kind``: "dicom", "png", "jpeg" or "" (sniffed)."""

    path: str
    kind: str = ""
    view: str = "UNKNOWN"
    image_id: int | None = None


def load_pixels(image: QueryImage | str | Path) -> np.ndarray:
    """The display pixels (float32 [0, 1], bright = dense, windowed, MONOCHROME1 inverted)."""
    from workers import imaging  # noqa: PLC0415 - defer pydicom/scipy

    if not isinstance(image, QueryImage):
        return imaging.read_image(str(image)).pixels
    if image.kind == "dicom":
        return imaging.read_dicom(image.path).pixels
    if image.kind in ("png", "jpeg"):
        return imaging.read_raster(image.path).pixels
    return imaging.read_image(image.path).pixels


def embed(encoder, pixels: list[np.ndarray]) -> np.ndarray:
    """(len(pixels), encoder.dim) unit vectors."""
    if not pixels:
        return np.zeros((0, encoder.dim), dtype=np.float32)
    return np.asarray(encoder.encode(list(pixels)), dtype=np.float32)


def resolve(path: str, media_root: str | Path | None) -> Path:
    """A memory image's file: relative paths are under the media root."""
    candidate = Path(path)
    if candidate.is_absolute() or media_root is None:
        return candidate
    return Path(media_root) / candidate
