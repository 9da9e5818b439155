"""The study's images in its context, read once for every image detector: their display
pixels, their descriptors under an encoder, and the reference images nearest them in the
image memory. The stage layer names the files and where the memory is; nothing is read until
a detector asks."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from workers.imagememory import QueryImage, load_pixels
from workers.imagememory.access import check_encoder, open_memory
from workers.imagememory.query import resolve


@dataclass
class StudyImages:
    """``queries``: the study's views, in order. ``index_dir`` and ``memory_options``: the
    image memory's folder and options (None: the site has none); ``media_root``: where the
    memory's relative image paths lie, unless ``reference_file`` gives a reference image's
    local path from its stored name (media in an object store: fetched when first needed)."""

    queries: tuple[QueryImage, ...]
    index_dir: str | None = None
    media_root: str | None = None
    memory_options: dict = field(default_factory=dict)
    reference_file: Callable[[str], str] | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.queries)

    @cached_property
    def pixels(self) -> list[np.ndarray]:
        """Each view's display pixels (float32 [0, 1], bright = dense)."""
        return [load_pixels(image) for image in self.queries]

    def reference_path(self, path: str) -> str:
        """The local path of a reference image the memory names by ``path``."""
        if self.reference_file is not None and not Path(path).is_absolute():
            return self.reference_file(path)
        return str(resolve(path, self.media_root))

    def memory(self):
        """The image memory, or ``MemoryUnavailable`` saying why it cannot serve."""
        return open_memory(self.index_dir, self.memory_options)

    def memory_for(self, encoder):
        """The image memory, refused (``MemoryUnavailable``) when another encoder built it."""
        memory = self.memory()
        check_encoder(memory, encoder)
        return memory

    def vectors(self, encoder) -> np.ndarray:
        """The views' descriptors under ``encoder`` (one row per view), computed once."""
        key = ("vectors", encoder.name)
        if key not in self._cache:
            self._cache[key] = encoder.encode(self.pixels)
        return self._cache[key]

    def neighbours(self, encoder, k: int) -> list:
        """Per view, its ``k`` nearest reference images (``Neighbour``), searched once."""
        key = ("neighbours", encoder.name, k)
        if key not in self._cache:
            self._cache[key] = self.memory_for(encoder).search(self.vectors(encoder), k)
        return self._cache[key]
