"""Accept bytes, a path or a file-like object wherever a file is read."""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import numpy as np

Source = bytes | bytearray | memoryview | str | os.PathLike | BinaryIO

#: No image we take has more pixels than this (6000 × 6000; a large detector is ~4300 × 4300).
#: Checked from the header before decoding, so a tiny file declaring a huge image cannot
#: make a worker allocate gigabytes.
MAX_PIXELS = 36_000_000


def read_source(source: Source) -> bytes:
    """All bytes of ``source``. A seekable stream is read from its start, so a stream that an
    upload handler already sniffed can be passed as it is."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if isinstance(source, (str, os.PathLike)):
        return Path(source).read_bytes()
    if hasattr(source, "read"):
        if getattr(source, "seekable", lambda: False)():
            source.seek(0)
        data = source.read()
        if not isinstance(data, (bytes, bytearray)):
            raise TypeError("the stream must be opened in binary mode")
        return bytes(data)
    raise TypeError(f"cannot read an image from a {type(source).__name__}")


class PixelGrid:
    """Rows and columns of a decoded image, read from its ``pixels`` array (rows × columns)."""

    pixels: np.ndarray

    @property
    def rows(self) -> int:
        return int(self.pixels.shape[0])

    @property
    def columns(self) -> int:
        return int(self.pixels.shape[1])
