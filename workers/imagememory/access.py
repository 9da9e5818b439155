"""Using the memory for one study, as both image detectors do: open it or say why it cannot
serve, and weigh the neighbours it returns by their image similarity."""
from __future__ import annotations

import numpy as np

from workers.pipeline import StageError

from .memory import EncoderMismatch, ImageMemoryError, cached_memory, memory_dir

#: Width of the similarity weighting: a neighbour this much less similar than the best one
#: weighs 1/e as much. Image similarities of near neighbours differ by hundredths.
SIMILARITY_SCALE = 0.05


class MemoryUnavailable(StageError):
    """The image memory cannot serve this study (empty, unreadable, built with another
    encoder); the image stages skip and say why rather than fail the study."""


def open_memory(index_dir: str, options: dict | None = None):
    """The image memory, or MemoryUnavailable saying why it cannot be used."""
    try:
        memory = cached_memory(memory_dir(index_dir), **(options or {}))
    except ImageMemoryError as exc:
        raise MemoryUnavailable(exc.message) from None
    if memory.is_empty:
        raise MemoryUnavailable(
            "The image memory is empty: import reference studies with images (python manage.py "
            "import_reference --images DIR --reports FILE) so that similar images can be "
            "retrieved.")
    return memory


def check_encoder(memory, encoder) -> None:
    try:
        memory.check_encoder(encoder)
    except EncoderMismatch as exc:
        raise MemoryUnavailable(exc.message) from None


def similarity_weights(similarities, scale: float = SIMILARITY_SCALE) -> np.ndarray:
    """exp((s − s_max) / scale), normalised to sum 1."""
    sims = np.asarray(similarities, dtype=np.float64)
    if sims.size == 0:
        return sims
    weights = np.exp((sims - sims.max()) / max(scale, 1e-6))
    return weights / weights.sum()
