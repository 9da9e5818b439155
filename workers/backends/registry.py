"""Which backend serves each role in this process: configured once, loaded lazily, reused.

Life of a worker process:

1. ``configure(settings.MODEL_ROLES)`` at start-up parses and checks every role's setting and
   raises ``BackendConfigError`` naming the setting when one is wrong. It loads nothing, so a
   Celery prefork parent (and the web server) never holds a model.
2. The first ``llm()`` / ``generator()`` / ``text_embedder()`` / ``image_encoder()`` /
   ``extractor()`` call in a process loads that role's backend, once, under a per-role lock;
   later calls return the same object. A failed load is remembered and re-raised (so a
   broken model does not cost a reload per task) until ``probe()`` retries it explicitly.
3. A forked child starts with nothing loaded (``os.register_at_fork``), so a model is never
   shared across a fork. GPU workers should run Celery with ``--pool solo``.

``describe()`` and ``probe()`` feed the admin status page. Without ``configure()``, the first
use configures from the RADREVIEW_* environment variables, as Django's settings would.

What ``llm()`` and ``generator()`` return for ``builtin`` is ``None``: the built-in engines
are not language models. A method package that gets ``None`` from ``llm()`` runs its rule-based
implementation from workers/nlp; from ``generator()``, the built-in retrieval generator.
"""
from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from workers.nlp.sections import parse_report
from workers.prompts import get_prompt

from .builtin import AppearanceDescriptorEncoder, RuleExtractor
from .errors import BackendError, BackendLoadError
from .openai_http import OpenAIGenerator, OpenAITextModel
from .openclip_encoder import OpenClipImageEncoder
from .radgraph_extractor import RadGraphExtractor
from .roles import (
    BUILTIN_ENGINE_NAME,
    Extractor,
    Generator,
    ImageEncoder,
    ImageInput,
    TextEmbedder,
    TextModel,
)
from .sentence_embedder import (
    BUILTIN_EMBEDDER_NAME,
    SentenceTransformerEmbedder,
    builtin_model_path,
)
from .spec import (
    BUILTIN,
    BUILTIN_STATIC,
    ROLES,
    BackendSpec,
    specs_from_environ,
    validate_specs,
)
from .static_embedder import BUILTIN_STATIC_NAME, StaticEmbedder
from .transformers_llm import TransformersTextModel
from .transformers_vlm import TransformersGenerator

log = logging.getLogger(__name__)


# --- building a backend ----------------------------------------------------------------------

def _builtin_embedder(spec: BackendSpec) -> Any:
    return SentenceTransformerEmbedder(builtin_model_path(), setting=spec.setting, device="cpu",
                                       name=BUILTIN_EMBEDDER_NAME, precision="auto")


def _builtin_static_embedder(spec: BackendSpec) -> Any:
    return StaticEmbedder(builtin_model_path(), name=BUILTIN_STATIC_NAME, setting=spec.setting,
                          cache_dir=_cache_dir)


def _builtin_image_encoder(spec: BackendSpec) -> Any:
    return AppearanceDescriptorEncoder()


def _builtin_extractor(spec: BackendSpec) -> Any:
    return RuleExtractor()


def _transformers_llm(spec: BackendSpec) -> Any:
    return TransformersTextModel(spec)


def _transformers_vlm(spec: BackendSpec) -> Any:
    return TransformersGenerator(spec)


def _openai_llm(spec: BackendSpec) -> Any:
    return OpenAITextModel(spec)


def _openai_generator(spec: BackendSpec) -> Any:
    return OpenAIGenerator(spec)


def _sentence_transformers(spec: BackendSpec) -> Any:
    return SentenceTransformerEmbedder(spec.path, setting=spec.setting,
                                       device=spec.option("device"),
                                       batch_size=spec.option("batch_size"),
                                       name=spec.option("name"),
                                       precision=spec.option("precision"))


def _open_clip(spec: BackendSpec) -> Any:
    return OpenClipImageEncoder(spec)


def _radgraph(spec: BackendSpec) -> Any:
    return RadGraphExtractor(spec)


FACTORIES: dict[tuple[str, str], Callable[[BackendSpec], Any]] = {
    ("llm", BUILTIN): lambda spec: None,
    ("generator", BUILTIN): lambda spec: None,
    ("text_embedder", BUILTIN): _builtin_embedder,
    ("text_embedder", BUILTIN_STATIC): _builtin_static_embedder,
    ("image_encoder", BUILTIN): _builtin_image_encoder,
    ("extractor", BUILTIN): _builtin_extractor,
    ("llm", "transformers"): _transformers_llm,
    ("llm", "openai"): _openai_llm,
    ("generator", "transformers"): _transformers_vlm,
    ("generator", "openai"): _openai_generator,
    ("text_embedder", "sentence-transformers"): _sentence_transformers,
    ("image_encoder", "open_clip"): _open_clip,
    ("extractor", "radgraph"): _radgraph,
}

_BUILTIN_NAMES = {
    "llm": f"{BUILTIN_ENGINE_NAME} (built-in rule engine)",
    "generator": "built-in retrieval generator",
    "text_embedder": "all-MiniLM-L6-v2",
    "image_encoder": "appearance descriptor (no learned weights)",
    "extractor": f"{BUILTIN_ENGINE_NAME} (built-in rule engine)",
}


def _expected_name(spec: BackendSpec) -> str:
    """The model name the status page shows before the backend is loaded."""
    if spec.kind == BUILTIN_STATIC:
        return BUILTIN_STATIC_NAME
    if spec.is_builtin:
        return _BUILTIN_NAMES[spec.role]
    return (spec.option("name") or spec.option("model") or spec.option("model_type")
            or spec.path.name)


# --- process state -----------------------------------------------------------------------------

@dataclass
class _Entry:
    lock: threading.Lock = field(default_factory=threading.Lock)
    loaded: bool = False
    instance: Any = None
    error: str | None = None
    load_seconds: float | None = None


_state_lock = threading.Lock()
# Where a backend keeps what it makes once per model version (the static embedder's table);
# set by the Django app to the data dir's cache. None: made again in each process.
_cache_dir: Path | None = None
_specs: dict[str, BackendSpec] | None = None
_entries: dict[str, _Entry] = {role: _Entry() for role in ROLES}


def configure(specs: Mapping[str, str | None], *,
              environ: Mapping[str, str] | None = None) -> dict[str, BackendSpec]:
    """Validate every role's setting (``{"llm": "builtin", ...}``) and make it current.

    Raises BackendConfigError naming each bad setting. Loads nothing. Calling it again with
    the same settings keeps what is loaded; different settings drop the loaded backends.
    """
    global _specs
    parsed = validate_specs(specs, environ)
    with _state_lock:
        if _specs == parsed:
            return dict(parsed)
        if _specs is not None and any(entry.loaded for entry in _entries.values()):
            log.info("model role settings changed; dropping the loaded backends")
        _specs = parsed
        for role in ROLES:
            _entries[role] = _Entry()
    for spec in parsed.values():
        log.log(
            logging.DEBUG if spec.is_builtin else logging.INFO,
            "%s = %s",
            spec.setting,
            spec.describe(),
        )
    return dict(parsed)


def set_cache_dir(path: str | Path | None) -> None:
    global _cache_dir
    _cache_dir = Path(path) if path is not None else None


def cache_dir() -> Path | None:
    return _cache_dir


def configure_from_environ(environ: Mapping[str, str] | None = None) -> dict[str, BackendSpec]:
    return configure(specs_from_environ(environ), environ=environ)


def is_configured() -> bool:
    return _specs is not None


def spec_for(role: str) -> BackendSpec:
    if role not in ROLES:
        raise KeyError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
    if _specs is None:
        configure_from_environ()
    assert _specs is not None
    return _specs[role]


def reset() -> None:
    """Forget the configuration and every loaded backend (tests)."""
    global _specs
    with _state_lock:
        _specs = None
        for role in ROLES:
            _entries[role] = _Entry()


def _after_fork_in_child() -> None:
    global _state_lock
    _state_lock = threading.Lock()
    for role in ROLES:
        entry = _entries[role]
        if entry.loaded and entry.instance is not None:
            log.warning("%s was loaded before this process forked; the child loads its own",
                        ROLES[role].setting)
        _entries[role] = _Entry()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def get(role: str) -> Any:
    """The role's backend, loaded on first use. None for a built-in llm or generator."""
    spec = spec_for(role)
    entry = _entries[role]
    if entry.loaded:
        return entry.instance
    with entry.lock:
        if entry.loaded:
            return entry.instance
        if entry.error is not None:
            raise BackendLoadError(entry.error)
        started = time.perf_counter()
        try:
            instance = FACTORIES[(role, spec.kind)](spec)
        except BackendError as exc:
            entry.error = str(exc)
            raise
        except Exception as exc:
            entry.error = (f"{spec.setting}: loading {spec.kind} from "
                           f"{spec.display_location} failed: {type(exc).__name__}: {exc}")
            raise BackendLoadError(entry.error) from exc
        entry.instance = instance
        entry.load_seconds = time.perf_counter() - started
        entry.loaded = True
        return instance


def llm() -> TextModel | None:
    """The llm role, or None: the built-in rule engine serves the task."""
    return get("llm")


def generator() -> Generator | None:
    """The generator role, or None: the built-in retrieval generator serves it."""
    return get("generator")


def text_embedder() -> TextEmbedder:
    return get("text_embedder")


def image_encoder() -> ImageEncoder:
    return get("image_encoder")


def extractor() -> Extractor:
    return get("extractor")


# --- model versions --------------------------------------------------------------------------

# The files of a local model folder that say which weights and settings it holds.
_VERSION_FILES = ("config.json", "generation_config.json", "preprocessor_config.json")


def _folder_fingerprint(folder: Path) -> str:
    """12 hex digits over the folder's configuration files and the names and sizes of its
    weight files: a retrained or replaced model gets another, a copy of the same one does not
    (the weights themselves are too large to hash at every draft)."""
    digest = hashlib.sha256()
    for name in _VERSION_FILES:
        path = folder / name
        if path.is_file():
            digest.update(name.encode() + b"\0" + path.read_bytes())
    for path in sorted(folder.iterdir()):
        if path.suffix in (".safetensors", ".bin", ".pt", ".gguf") and path.is_file():
            digest.update(f"{path.name}\0{path.stat().st_size}\n".encode())
    return digest.hexdigest()[:12]


def spec_version(spec: BackendSpec) -> str:
    """Which version of a model a backend setting serves: the setting as the status page shows
    it (kind, folder or URL, options; "builtin" for the built-in default) and, for a model in a
    local folder, a fingerprint of that folder."""
    described = spec.describe()
    if not spec.is_builtin and spec.kind != "openai" and spec.path.is_dir():
        return f"{described} #{_folder_fingerprint(spec.path)}"
    return described


def version_of(role: str) -> str:
    """The version of the model that serves ``role`` now, as stored with what it makes."""
    return spec_version(spec_for(role))


# --- status page -----------------------------------------------------------------------------

@dataclass(frozen=True)
class RoleStatus:
    role: str
    setting: str
    kind: str
    model: str
    location: str
    spec: str
    loaded: bool
    load_error: str | None = None
    load_seconds: float | None = None
    #: For the image encoder: False when it has no learned weights (the UI says so).
    learned: bool | None = None


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    latency_s: float
    detail: str = ""
    error: str | None = None


def describe() -> list[RoleStatus]:
    """Each role's backend and whether it is loaded in this process."""
    statuses = []
    for role in ROLES:
        spec = spec_for(role)
        entry = _entries[role]
        instance = entry.instance if entry.loaded else None
        learned = None
        if role == "image_encoder":
            learned = bool(getattr(instance, "learned", not spec.is_builtin))
        statuses.append(RoleStatus(
            role=role, setting=spec.setting, kind=spec.kind,
            model=getattr(instance, "name", None) or _expected_name(spec),
            location=spec.display_location, spec=spec.describe(), loaded=entry.loaded,
            load_error=entry.error, load_seconds=entry.load_seconds, learned=learned))
    return statuses


_PROBE_REPORT = "Heart size is normal. Small left pleural effusion. No pneumothorax."


def _probe_image() -> np.ndarray:
    rows, cols = np.mgrid[0:96, 0:80].astype(np.float32)
    return (0.5 + 0.25 * np.sin(rows / 9.0) * np.cos(cols / 7.0)).astype(np.float32)


def _probe_llm(model: TextModel | None) -> str:
    if model is None:

        sentences = len(parse_report(_PROBE_REPORT).sentences)
        return f"built-in rule engine: parsed a test report into {sentences} sentences"

    prompt = get_prompt("status_probe")
    reply = model.complete(prompt.render(), temperature=0.0, max_tokens=prompt.max_tokens)
    return f"{model.name} replied {reply[:80]!r}"


# How to load the built-in retrieval generator (workers.rarrg.generator), set by the Django app
# with its INDEX_DIR, so that probing the "builtin" generator tests the real thing.
_builtin_generator_loader: Callable[[], Generator] | None = None


def set_builtin_generator_loader(loader: Callable[[], Generator] | None) -> None:
    global _builtin_generator_loader
    _builtin_generator_loader = loader


def _probe_generator(model: Generator | None) -> str:
    if model is None:
        if _builtin_generator_loader is None:
            return ("built-in retrieval generator: not checked (no image memory is known to "
                    "this process)")
        try:
            builtin = _builtin_generator_loader()
            [report] = builtin.generate([ImageInput(_probe_image(), "PA")], "", temperature=0.0,
                                        n=1)
        except Exception as exc:  # StageError (empty memory, other encoder) carries .message
            raise RuntimeError(getattr(exc, "message", None) or str(exc)) from None
        return f"built-in retrieval generator drafted {report[:80]!r} from the image memory"

    prompt = get_prompt("status_probe")
    reports = model.generate([ImageInput(_probe_image(), "PA")], prompt.text(), temperature=0.0,
                             n=1, max_tokens=prompt.max_tokens)
    return f"{model.name} replied {reports[0][:80]!r}"


def _probe_text_embedder(model: TextEmbedder) -> str:
    vectors = model.embed(["Small left pleural effusion.", "Small left-sided effusion."])
    return (f"{model.name}: {vectors.shape[1]}-d vectors; cosine of two paraphrases "
            f"{float(vectors[0] @ vectors[1]):.2f}")


def _probe_image_encoder(model: ImageEncoder) -> str:
    vectors = model.encode([_probe_image()])
    kind = "learned weights" if model.learned else "no learned weights"
    return f"{model.name}: {vectors.shape[1]}-d vector ({kind})"


def _probe_extractor(model: Extractor) -> str:
    graph = model.extract(_PROBE_REPORT)
    entities = getattr(graph, "entities", None)
    if entities is not None:
        return f"{model.name}: {len(entities)} entities in a three-sentence test report"
    return f"{model.name}: extracted {type(graph).__name__}"


_PROBES: dict[str, Callable[[Any], str]] = {
    "llm": _probe_llm, "generator": _probe_generator, "text_embedder": _probe_text_embedder,
    "image_encoder": _probe_image_encoder, "extractor": _probe_extractor,
}


def probe(role: str) -> ProbeResult:
    """Run a tiny real request through the role (the admin page's "test" button).

    Loads the backend if needed (retrying a load that failed before); ``latency_s`` times
    the request alone, and ``detail`` says how long a load took when this probe did one.
    """
    spec = spec_for(role)
    entry = _entries[role]
    with entry.lock:
        entry.error = None
    started = time.perf_counter()
    was_loaded = entry.loaded
    try:
        model = get(role)
    except Exception as exc:
        return ProbeResult(False, time.perf_counter() - started, f"{spec.setting}: load failed",
                           str(exc) or type(exc).__name__)
    load_seconds = time.perf_counter() - started
    request_started = time.perf_counter()
    try:
        detail = _PROBES[role](model)
    except Exception as exc:
        return ProbeResult(False, time.perf_counter() - request_started,
                           f"{spec.setting}: the test request failed",
                           f"{type(exc).__name__}: {exc}")
    latency = time.perf_counter() - request_started
    if not was_loaded and not spec.is_builtin:
        detail += f" (loaded first, in {load_seconds:.1f} s)"
    return ProbeResult(True, latency, detail)
