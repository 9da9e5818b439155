"""A small deterministic text embedder and library for the audit tests (no model to load).

``HashEmbedder`` embeds a text as the normalised sum of fixed random vectors of its words, so
texts that share words are similar, and it counts what it was asked to embed.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from workers.library.text import LibraryEntry, TextLibrary
from workers.library.vectors import SentenceVectors


class HashEmbedder:
    name = "hash-embedder"
    precision = "float32"

    def __init__(self, dim: int = 64):
        self.dim = dim
        self.calls: list[list[str]] = []

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little")
        return np.random.default_rng(seed).standard_normal(self.dim)

    def embed(self, texts):
        texts = list(texts)
        self.calls.append(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[i] += self._word(word)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return (out / np.maximum(norms, 1e-12)).astype(np.float32)

    @property
    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]


# Reference reports written the way a department's templates read.
REFERENCE_REPORTS = [
    ("ref-1", "FINDINGS: The heart is normal in size. The lungs are clear. No pleural effusion "
              "or pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality."),
    ("ref-2", "FINDINGS: The heart is normal in size. The lungs are clear. No pleural effusion "
              "or pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality."),
    ("ref-3", "FINDINGS: Heart size is normal. There is no focal airspace consolidation. No "
              "pleural effusion or pneumothorax.\nIMPRESSION: Normal chest."),
    ("ref-4", "FINDINGS: Heart size is normal. There is no focal airspace consolidation. No "
              "pleural effusion or pneumothorax.\nIMPRESSION: No acute cardiopulmonary "
              "abnormality."),
    ("ref-5", "FINDINGS: Mild cardiomegaly. Small left pleural effusion. No pneumothorax.\n"
              "IMPRESSION: Cardiomegaly with small left pleural effusion."),
    ("ref-6", "FINDINGS: The lungs are clear. No pleural effusion or pneumothorax. Degenerative "
              "changes of the spine.\nIMPRESSION: No acute cardiopulmonary abnormality."),
    ("ref-7", "FINDINGS: Heart size is normal. There is no focal airspace consolidation. No "
              "pleural effusion or pneumothorax.\nIMPRESSION: No acute cardiopulmonary "
              "abnormality."),
]


def make_library(reports=REFERENCE_REPORTS, embedder: HashEmbedder | None = None
                 ) -> TextLibrary:
    embedder = embedder or HashEmbedder()
    entries = [LibraryEntry(i, external_id, text)
               for i, (external_id, text) in enumerate(reports, 1)]
    return TextLibrary.build(entries, SentenceVectors(embedder))
