"""text_embedder role: a static word-piece table distilled from a sentence-transformers model.

model2vec's idea: each word piece of the model's vocabulary goes through the whole model once,
alone (``[CLS] piece [SEP]``), and its sentence vector becomes that piece's row of a table. A
text's vector is then the normalised sum of its pieces' rows (each centred on the pieces'
mean and scaled by a Zipf weight, the pooling chosen by neighbour agreement): no
transformer runs after the table is made, so a sentence costs microseconds instead of
milliseconds. It is a different embedder, not a faster copy: a report's nearest reports by it
are not those by the model (docs/audit.md, "Fifth round"), so it is an option, never the default.

The table depends only on the model's files and on this module's way of making it, so it is
made once per model version (about 30 s of CPU for all-MiniLM-L6-v2's 30,522 pieces) and kept
in the data dir's cache, written whole or not at all; the next process reads it back.
"""
from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

import numpy as np

from workers.atomic import replacing

from .errors import BackendLoadError
from .roles import l2_normalise

log = logging.getLogger(__name__)

BUILTIN_STATIC_NAME = "all-MiniLM-L6-v2-static"
CACHE_SUBDIR = "static-embedder"
# Part of the table's key: a change in how the table is made must not read an old one back.
TABLE_FORMAT = "pieces-framed-float32-centred-zipf-log1p"
DISTIL_BATCH = 512


def model_key(path: Path, name: str) -> str:
    """The kept table's file stem: the model's name, and its files' names, sizes and times
    (a replaced or retrained model gets a new table; hashing 90 MB of weights at every start
    would cost more than the table's read)."""
    digest = hashlib.sha256(TABLE_FORMAT.encode() + b"\0")
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        stat = file.stat()
        digest.update(f"{file.relative_to(path)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return f"{safe}-{digest.hexdigest()[:20]}"


def zipf_weights(vocab_size: int, skipped: set[int]) -> np.ndarray:
    """log(1 + rank) per piece, the rank being its place in the vocabulary among the pieces
    kept. A WordPiece vocabulary lists its pieces roughly by frequency, so common pieces
    ("the", "of", ".") weigh little and rare, telling ones more (model2vec's Zipf weighting,
    which needs no corpus)."""
    weights = np.zeros(vocab_size, dtype=np.float32)
    kept = np.array([i for i in range(vocab_size) if i not in skipped], dtype=np.int64)
    weights[kept] = np.log1p(np.arange(1, len(kept) + 1, dtype=np.float32))
    return weights


def _skipped_ids(tokenizer) -> set[int]:
    """The special pieces a text's vector leaves out ([CLS], [SEP], [PAD], [MASK]); [UNK]
    stays: it is what the model sees for a character it does not know."""
    return {i for i in tokenizer.all_special_ids if i != tokenizer.unk_token_id}


def _special_frame(tokenizer) -> tuple[list[int], list[int]]:
    """The special pieces the tokenizer puts before and after a text (BERT: [CLS], [SEP])."""
    framed = tokenizer("a")["input_ids"]
    bare = tokenizer("a", add_special_tokens=False)["input_ids"]
    for at in range(len(framed) - len(bare) + 1):
        if framed[at:at + len(bare)] == bare:
            return framed[:at], framed[at + len(bare):]
    raise BackendLoadError("the static embedder cannot find where its tokenizer puts a text "
                           "between its special pieces")


def distil_table(path: Path) -> np.ndarray:
    """(vocab, dim) float32: each piece's sentence vector by the model, less the pieces' mean
    vector, times the piece's Zipf weight; zero rows for the special pieces."""
    import torch  # noqa: PLC0415 - defer torch
    from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - defer it too

    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    tokenizer = model.tokenizer
    vocab_size = len(tokenizer)
    skipped = _skipped_ids(tokenizer)
    ids = [i for i in range(vocab_size) if i not in skipped]
    table = np.zeros((vocab_size, int(model.get_embedding_dimension())), dtype=np.float32)
    prefix, suffix = _special_frame(tokenizer)
    with torch.inference_mode():
        for start in range(0, len(ids), DISTIL_BATCH):
            chunk = ids[start:start + DISTIL_BATCH]
            input_ids = torch.tensor([[*prefix, i, *suffix] for i in chunk])
            features = {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids)}
            if "token_type_ids" in tokenizer.model_input_names:
                features["token_type_ids"] = torch.zeros_like(input_ids)
            vectors = model(features)["sentence_embedding"]
            table[chunk] = l2_normalise(vectors.float().numpy())
    # What every piece shares says nothing about a text; removing it (as model2vec's PCA
    # does) brought a report's five nearest reports closer to the model's (docs/audit.md).
    table[ids] -= table[ids].mean(axis=0)
    return table * zipf_weights(vocab_size, skipped)[:, None]


def load_table(file: Path, vocab_size: int) -> np.ndarray | None:
    """The kept table, or None (no file, or one that cannot be read back or does not fit)."""
    try:
        table = np.load(file, allow_pickle=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring the static embedder's table %s (%s); making it again", file.name,
                    type(exc).__name__)
        return None
    if table.ndim != 2 or table.shape[0] != vocab_size or table.dtype != np.float32:
        log.warning("ignoring the static embedder's table %s (shape %s); making it again",
                    file.name, table.shape)
        return None
    return table


def save_table(file: Path, table: np.ndarray) -> None:
    """Keep the table (atomically); a failure to write only costs making it again."""
    try:
        with replacing(file) as partial, partial.open("wb") as f:
            np.save(f, table, allow_pickle=False)
    except OSError as exc:
        log.warning("could not keep the static embedder's table in %s: %s", file.parent, exc)


class StaticEmbedder:
    """``TextEmbedder`` over a word-piece table distilled from the model in ``path``.

    With ``cache_dir`` the table is read from ``cache_dir/static-embedder/<key>.npy`` when a
    process made it before for the same model files, and kept there when made here.
    ``made`` says which happened (False: read back).
    """

    precision = "float32"

    def __init__(self, path: Path, *, name: str, cache_dir: str | Path | None = None,
                 setting: str = "RADREVIEW_TEXT_EMBEDDER") -> None:
        from transformers import AutoTokenizer  # noqa: PLC0415 - defer transformers

        path = Path(path)
        if not (path / "tokenizer.json").is_file():
            raise BackendLoadError(f"{setting}: {path} has no tokenizer.json (the static "
                                   "embedder reads the model's fast tokenizer)")
        self.name = name
        self.tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True,
                                                       use_fast=True)
        self._skipped = np.array(sorted(_skipped_ids(self.tokenizer)), dtype=np.int64)
        self.key = model_key(path, name)
        file = Path(cache_dir) / CACHE_SUBDIR / f"{self.key}.npy" if cache_dir else None
        table = load_table(file, len(self.tokenizer)) if file else None
        self.made = table is None
        if table is None:
            table = distil_table(path)
            if file:
                save_table(file, table)
        self.table = table
        self.dim = int(table.shape[1])
        self._lock = threading.Lock()
        log.info("%s: %s, a %d x %d word-piece table (%s)", setting, name, *table.shape,
                 "made" if self.made else "read back")

    def embed(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # the fast tokenizer's Rust side is not safe to call from two threads at once; no
        # transformer reads the pieces, so a text longer than the model's 512 is no problem
        with self._lock:
            pieces = self.tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"]
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, ids in enumerate(pieces):
            ids = np.asarray(ids, dtype=np.int64)
            ids = ids[~np.isin(ids, self._skipped)]
            if ids.size:
                vectors[row] = self.table[ids].sum(axis=0)
        return l2_normalise(vectors)
