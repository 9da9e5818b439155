"""The image memory: reference images embedded in a FAISS index, with their studies' reports.

One memory lives in ``<INDEX_DIR>/image_memory/``. Each save writes a complete *generation*
(``gen-000042/``: the FAISS index, ``manifest.json``, ``phrases.npy``) and then flips the
``CURRENT`` pointer with an atomic rename, so a reader (a worker drafting a report while an
import runs) always sees one consistent generation, never an index from one save and a
manifest from another. Writers hold ``memory_lock`` around load → change → save.

The manifest carries what a worker needs without a database: for every image its reference
image id, study id, view and file; for every study its report, key phrases and disease
entities; which image encoder made the vectors (a memory refuses a different encoder, see
``check_encoder``) and which text embedder made the phrase vectors. Image ids are the
``ReferenceImage`` primary keys and study ids the ``ReferenceStudy`` ones, so every result can
be traced back to its source rows.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from workers.errors import WorkerError

MEMORY_SUBDIR = "image_memory"
FORMAT_VERSION = 1
_CURRENT = "CURRENT"
_INDEX = "images.faiss"
_MANIFEST = "manifest.json"
_PHRASES = "phrases.npy"
_SUMMARY = "summary.json"
_KEEP_GENERATIONS = 2  # the newest and the one before, which a reader may still be opening

REBUILD_HINT = "run `python manage.py rebuild_image_index`"


def memory_dir(index_dir: str | os.PathLike) -> Path:
    """Where the image memory of a site lives, given ``settings.INDEX_DIR``."""
    return Path(index_dir) / MEMORY_SUBDIR


class ImageMemoryError(WorkerError):
    """Base of the image memory's errors; ``message`` is meant for the page or the console."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class EncoderMismatch(ImageMemoryError):
    """The memory was built with another image encoder (or text embedder) than the one
    configured now: vectors of two encoders cannot be compared."""


class MemoryCorrupt(ImageMemoryError):
    """The files on disk disagree with each other."""


@dataclass(frozen=True)
class MemoryStudy:
    id: int
    external_id: str
    source: str
    report: str
    phrases: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        data = asdict(self)
        data["phrases"], data["entities"] = list(self.phrases), list(self.entities)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> MemoryStudy:
        return cls(int(data["id"]), str(data["external_id"]), str(data.get("source", "")),
                   str(data["report"]), tuple(data.get("phrases", ())),
                   tuple(data.get("entities", ())))


@dataclass(frozen=True)
class MemoryImage:
    id: int
    study_id: int
    view: str = "UNKNOWN"
    path: str = ""  # relative to the media root (or absolute)

    @classmethod
    def from_dict(cls, data: dict) -> MemoryImage:
        return cls(int(data["id"]), int(data["study_id"]), str(data.get("view", "UNKNOWN")),
                   str(data.get("path", "")))


@dataclass(frozen=True)
class Neighbour:
    """A retrieved reference image with its study; ``query`` is the index of the query image
    (the view of the study) that found it."""

    image: MemoryImage
    study: MemoryStudy
    similarity: float
    query: int = 0

    def to_dict(self, excerpt_chars: int = 300) -> dict:
        report = " ".join(self.study.report.split())
        return {
            "reference_id": self.study.id, "image_id": self.image.id,
            "external_id": self.study.external_id, "view": self.image.view,
            "similarity": round(float(self.similarity), 4), "query": self.query,
            "excerpt": report if len(report) <= excerpt_chars else report[:excerpt_chars] + "…",
        }


@dataclass
class EncoderInfo:
    name: str
    dim: int
    learned: bool

    @classmethod
    def of(cls, encoder) -> EncoderInfo:
        return cls(str(encoder.name), int(encoder.dim), bool(getattr(encoder, "learned", True)))


@dataclass
class _Manifest:
    encoder: EncoderInfo | None = None
    text_embedder: str | None = None
    studies: dict[int, MemoryStudy] = field(default_factory=dict)
    images: dict[int, MemoryImage] = field(default_factory=dict)
    phrases: list[str] = field(default_factory=list)


class ImageMemory:
    """An image memory in memory; ``open`` reads the current generation, ``save`` writes one."""

    def __init__(self, directory: str | os.PathLike, *, hnsw=None, exact_below: int = 20_000):
        from workers.retrieval.index import HnswParams  # noqa: PLC0415 - defer faiss (loads with the first index)

        self.directory = Path(directory)
        self.hnsw = hnsw or HnswParams()
        self.exact_below = exact_below
        self._manifest = _Manifest()
        self._index = None  # a workers.retrieval.index.VectorIndex once images are added
        self.phrase_vectors = np.zeros((0, 0), dtype=np.float32)
        self.generation: str | None = None
        self._phrase_ids: dict[str, int] | None = None

    # --- reading --------------------------------------------------------------------------

    @classmethod
    def open(cls, directory: str | os.PathLike, **kwargs) -> ImageMemory:
        """The current generation under ``directory``, or an empty memory when there is none."""
        memory = cls(directory, **kwargs)
        generation = _read_current(memory.directory)
        if generation is None:
            return memory
        folder = memory.directory / generation
        try:
            raw = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MemoryCorrupt(f"The image memory at {memory.directory} cannot be read "
                                f"({type(exc).__name__}); {REBUILD_HINT}.") from None
        if raw.get("format") != FORMAT_VERSION:
            raise MemoryCorrupt(f"The image memory at {memory.directory} has format "
                                f"{raw.get('format')!r}, this version reads {FORMAT_VERSION}; "
                                f"{REBUILD_HINT}.")
        encoder = raw.get("encoder")
        memory._manifest = _Manifest(
            encoder=EncoderInfo(**encoder) if encoder else None,
            text_embedder=raw.get("text_embedder"),
            studies={int(s["id"]): MemoryStudy.from_dict(s) for s in raw.get("studies", [])},
            images={int(i["id"]): MemoryImage.from_dict(i) for i in raw.get("images", [])},
            phrases=list(raw.get("phrases", [])),
        )
        if memory._manifest.images:
            from workers.retrieval.index import VectorIndex  # noqa: PLC0415 - defer faiss

            memory._index = VectorIndex.load(folder / _INDEX, hnsw=memory.hnsw,
                                             exact_below=memory.exact_below)
            indexed = set(int(i) for i in memory._index.ids())
            if indexed != set(memory._manifest.images):
                raise MemoryCorrupt(f"The image memory at {memory.directory} is inconsistent "
                                    f"(its index holds {len(indexed)} images, its manifest "
                                    f"{len(memory._manifest.images)}); {REBUILD_HINT}.")
        phrases_file = folder / _PHRASES
        if phrases_file.exists():
            memory.phrase_vectors = np.load(phrases_file)
        if len(memory.phrase_vectors) != len(memory._manifest.phrases):
            raise MemoryCorrupt(f"The phrase vectors of the image memory at {memory.directory} "
                                f"do not match its phrases; {REBUILD_HINT}.")
        memory.generation = generation
        return memory

    @property
    def encoder(self) -> EncoderInfo | None:
        return self._manifest.encoder

    @property
    def text_embedder(self) -> str | None:
        return self._manifest.text_embedder

    @property
    def studies(self) -> dict[int, MemoryStudy]:
        return self._manifest.studies

    @property
    def images(self) -> dict[int, MemoryImage]:
        return self._manifest.images

    @property
    def phrases(self) -> list[str]:
        return self._manifest.phrases

    @property
    def index_kind(self) -> str:
        return self._index.kind if self._index is not None else "exact"

    def __len__(self) -> int:
        return len(self._manifest.images)

    @property
    def is_empty(self) -> bool:
        return not self._manifest.images

    def phrase_id(self, text: str) -> int | None:
        if self._phrase_ids is None:
            self._phrase_ids = {p: i for i, p in enumerate(self._manifest.phrases)}
        return self._phrase_ids.get(text)

    def entity_vocabulary(self) -> frozenset[str]:
        """Every disease entity phrase the library's reports contain (V-RAG's sub-phrase map)."""
        return frozenset(e for s in self._manifest.studies.values() for e in s.entities)

    def check_encoder(self, encoder) -> None:
        """Refuse an encoder other than the one that built the memory."""
        built = self._manifest.encoder
        if built is None or self.is_empty:
            return
        now = EncoderInfo.of(encoder)
        if (built.name, built.dim) != (now.name, now.dim):
            raise EncoderMismatch(
                f"The image memory was built with the image encoder {built.name} "
                f"({built.dim}-d) but the image encoder is now {now.name} ({now.dim}-d); "
                f"vectors of different encoders cannot be compared. An admin must "
                f"{REBUILD_HINT} to re-embed the reference images with the new encoder.")

    def check_text_embedder(self, embedder) -> None:
        built = self._manifest.text_embedder
        if built is not None and self._manifest.phrases and built != embedder.name:
            raise EncoderMismatch(
                f"The key-phrase vectors of the image memory were made with the text embedder "
                f"{built} but the text embedder is now {embedder.name}. An admin must "
                f"{REBUILD_HINT} to re-embed the key phrases.")

    def vectors(self, image_ids) -> np.ndarray:
        """The stored (unit) vectors of these images, in order."""
        if self._index is None:
            return np.zeros((0, self._manifest.encoder.dim if self._manifest.encoder else 0),
                            dtype=np.float32)
        # VectorIndex keeps the FAISS IndexIDMap2, which reconstructs a vector by its id.
        inner = self._index._index
        return np.stack([inner.reconstruct(int(i)) for i in image_ids]).astype(np.float32)

    # --- searching ------------------------------------------------------------------------

    def search(self, queries: np.ndarray, k: int, *, exclude_studies=(),
               per_study: bool = True) -> list[list[Neighbour]]:
        """The ``k`` nearest reference images of each query vector, best first.

        ``per_study``: at most one image per reference study (its best), so a study with a
        frontal and a lateral view counts once. ``exclude_studies``: reference studies never
        returned (leave-one-out evaluation, fine-tuning data).
        """
        queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if self._index is None or k <= 0:
            return [[] for _ in queries]
        exclude_studies = set(exclude_studies)
        results = []
        wanted = k
        for row, query in enumerate(queries):
            while True:
                # Images of excluded or repeated studies are skipped, so ask for more than k.
                ask = min(len(self), wanted * 2 + 8 * bool(exclude_studies))
                hits = self._index.search(query[None, :], ask)[0]
                found: list[Neighbour] = []
                seen: set[int] = set()
                for hit in hits:
                    image = self._manifest.images.get(hit.id)
                    if image is None or image.study_id in exclude_studies:
                        continue
                    if per_study and image.study_id in seen:
                        continue
                    seen.add(image.study_id)
                    found.append(Neighbour(image, self._manifest.studies[image.study_id],
                                           hit.score, row))
                    if len(found) == k:
                        break
                if len(found) == k or ask >= len(self):
                    break
                wanted *= 2
            results.append(found)
            wanted = k
        return results

    # --- changing -------------------------------------------------------------------------

    def set_encoder(self, encoder) -> None:
        self.check_encoder(encoder)
        self._manifest.encoder = EncoderInfo.of(encoder)

    def add(self, studies: list[MemoryStudy], images: list[MemoryImage],
            vectors: np.ndarray) -> None:
        """Add (or replace) studies and add new images with their vectors."""
        if self._manifest.encoder is None:
            raise ValueError("set_encoder() before adding images")
        if images:
            vectors = np.asarray(vectors, dtype=np.float32).reshape(len(images), -1)
        if images and vectors.shape[1] != self._manifest.encoder.dim:
            raise ValueError(f"vectors have {vectors.shape[1]} dimensions, the memory's encoder "
                             f"{self._manifest.encoder.dim}")
        for study in studies:
            self._manifest.studies[study.id] = study
        missing = {i.study_id for i in images} - set(self._manifest.studies)
        if missing:
            raise ValueError(f"images of unknown studies {sorted(missing)}")
        duplicates = [i.id for i in images if i.id in self._manifest.images]
        if duplicates:
            raise ValueError(f"images already in the memory: {duplicates[:5]}")
        if not images:
            return
        if self._index is None:
            from workers.retrieval.index import VectorIndex  # noqa: PLC0415 - defer faiss

            self._index = VectorIndex(self._manifest.encoder.dim, hnsw=self.hnsw,
                                      exact_below=self.exact_below)
        self._index.add([i.id for i in images], vectors)
        for image in images:
            self._manifest.images[image.id] = image

    def set_phrase_bank(self, phrases: list[str], vectors: np.ndarray, embedder_name: str) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(phrases) != len(vectors):
            raise ValueError("one vector per phrase")
        self._manifest.phrases = list(phrases)
        self._manifest.text_embedder = embedder_name
        self.phrase_vectors = vectors
        self._phrase_ids = None

    def missing_phrases(self) -> list[str]:
        """Phrases of the studies that the phrase bank does not hold yet, in first-seen order."""
        known = set(self._manifest.phrases)
        out: dict[str, None] = {}
        for study in self._manifest.studies.values():
            for phrase in study.phrases:
                if phrase not in known:
                    out.setdefault(phrase, None)
        return list(out)

    def extend_phrase_bank(self, phrases: list[str], vectors: np.ndarray,
                           embedder_name: str) -> None:
        if self._manifest.phrases and self._manifest.text_embedder != embedder_name:
            raise EncoderMismatch(f"the phrase bank holds {self._manifest.text_embedder} "
                                  f"vectors, not {embedder_name}; {REBUILD_HINT}.")
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(phrases), -1)
        if len(self.phrase_vectors):
            vectors = np.concatenate([self.phrase_vectors, vectors])
        self.set_phrase_bank(self._manifest.phrases + list(phrases), vectors, embedder_name)

    # --- writing --------------------------------------------------------------------------

    def save(self) -> str:
        """Write a new generation and make it current; returns its name."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = _next_generation(self.directory)
        staging = Path(tempfile.mkdtemp(dir=self.directory, prefix=".staging-"))
        try:
            if self._index is not None:
                self._index.save(staging / _INDEX)
            np.save(staging / _PHRASES, self.phrase_vectors.astype(np.float32))
            manifest = {
                "format": FORMAT_VERSION,
                "encoder": asdict(self._manifest.encoder) if self._manifest.encoder else None,
                "text_embedder": self._manifest.text_embedder,
                "index_kind": self.index_kind,
                "studies": [s.to_dict() for s in self._manifest.studies.values()],
                "images": [asdict(i) for i in self._manifest.images.values()],
                "phrases": self._manifest.phrases,
            }
            (staging / _MANIFEST).write_text(json.dumps(manifest, ensure_ascii=False),
                                             encoding="utf-8")
            summary = {"encoder": manifest["encoder"], "text_embedder": manifest["text_embedder"],
                       "index_kind": manifest["index_kind"], "images": len(manifest["images"]),
                       "studies": len(manifest["studies"]), "phrases": len(manifest["phrases"]),
                       "generation": name}
            (staging / _SUMMARY).write_text(json.dumps(summary), encoding="utf-8")
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self.generation = install_generation(self.directory, staging, name)
        return self.generation


def install_generation(directory: str | os.PathLike, staging: str | os.PathLike,
                       name: str | None = None) -> str:
    """Make the complete generation in ``staging`` (a folder inside ``directory``) the current
    one under ``name`` (default: the next number) and return its name. Saves use it, and so
    does a host copying a generation from the object store (radreview/library/index_store)."""
    directory, staging = Path(directory), Path(staging)
    name = name or _next_generation(directory)
    target = directory / name
    try:
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    pointer = directory / f".{_CURRENT}.partial"
    pointer.write_text(name, encoding="utf-8")
    os.replace(pointer, directory / _CURRENT)
    _prune(directory, name)
    return name


def generation_files(directory: str | os.PathLike) -> dict[str, Path]:
    """The files of the current generation by name; empty when there is none."""
    generation = _read_current(Path(directory))
    if generation is None:
        return {}
    return {p.name: p for p in sorted((Path(directory) / generation).iterdir()) if p.is_file()}


def _next_generation(directory: Path) -> str:
    previous = _read_current(directory)
    return f"gen-{int(previous.split('-')[1]) + 1 if previous else 1:06d}"


def read_summary(directory: str | os.PathLike) -> dict | None:
    """Counts, encoder and index kind of the current generation, without loading the index
    (the library page reads this in the web process); None when there is no memory."""
    directory = Path(directory)
    generation = _read_current(directory)
    if generation is None:
        return None
    try:
        return json.loads((directory / generation / _SUMMARY).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise MemoryCorrupt(f"The image memory at {directory} cannot be read; "
                            f"{REBUILD_HINT}.") from None


def _read_current(directory: Path) -> str | None:
    try:
        name = (directory / _CURRENT).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    return name or None


def _prune(directory: Path, current: str) -> None:
    generations = sorted(p.name for p in directory.glob("gen-*") if p.is_dir())
    for name in generations[:-_KEEP_GENERATIONS]:
        if name != current:
            shutil.rmtree(directory / name, ignore_errors=True)


@contextlib.contextmanager
def memory_lock(directory: str | os.PathLike):
    """One writer at a time (imports, rebuilds), across processes."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_cache: dict[Path, tuple[str, ImageMemory]] = {}
_cache_lock = threading.Lock()


def cached_memory(directory: str | os.PathLike, **kwargs) -> ImageMemory:
    """The current generation, read once per process and re-read when a new one appears."""
    directory = Path(directory)
    current = _read_current(directory)
    with _cache_lock:
        entry = _cache.get(directory)
        if entry is not None and current is not None and entry[0] == current:
            return entry[1]
    memory = ImageMemory.open(directory, **kwargs)
    if memory.generation is not None:
        with _cache_lock:
            _cache[directory] = (memory.generation, memory)
    return memory
