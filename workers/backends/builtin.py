"""Adapters that put the built-in engines behind the role interfaces.

workers.imaging and workers.nlp are imported when the adapter is built, not at import time, so
this package stays importable while those packages change and a role that is never used never
pays for them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .errors import BackendLoadError
from .roles import BUILTIN_ENGINE_NAME, l2_normalise


class AppearanceDescriptorEncoder:
    """``ImageEncoder`` over the deterministic appearance descriptor (no learned weights)."""

    learned = False

    def __init__(self) -> None:
        try:
            from workers.imaging import descriptor  # noqa: PLC0415 - optional workers.imaging.descriptor
        except ImportError as exc:
            raise BackendLoadError("RADREVIEW_IMAGE_ENCODER: the built-in appearance "
                                   f"descriptor (workers.imaging.descriptor) is missing: {exc}"
                                   ) from exc
        self._describe = descriptor.describe
        self.name: str = descriptor.APPEARANCE_DESCRIPTOR_NAME
        self.dim: int = int(getattr(descriptor, "DIM", 512))

    def encode(self, images: list[np.ndarray]) -> np.ndarray:
        images = list(images)
        if not images:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.stack([np.asarray(self._describe(image), dtype=np.float32)
                            for image in images])
        if vectors.shape[1] != self.dim:
            raise BackendLoadError(f"the appearance descriptor returned {vectors.shape[1]} "
                                   f"values, expected {self.dim}")
        return l2_normalise(vectors)


class RuleExtractor:
    """``Extractor`` over the rule engine's RadGraph-schema extraction."""

    name = BUILTIN_ENGINE_NAME

    def __init__(self) -> None:
        try:
            from workers.nlp.graph import extract_graph  # noqa: PLC0415 - optional workers.nlp.graph
        except ImportError as exc:
            raise BackendLoadError("RADREVIEW_EXTRACTOR: the built-in extractor "
                                   f"(workers.nlp.graph.extract_graph) is missing: {exc}"
                                   ) from exc
        self._extract = extract_graph

    def extract(self, text: str) -> Any:
        return self._extract(text)
