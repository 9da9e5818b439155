"""extractor role: the ``radgraph`` package with its model files in a local folder.

How radgraph 0.1.18 loads (radgraph/radgraph.py): ``RadGraph(model_type, model_cache_dir=DIR)``
reads ``DIR/<model_type>/config.json``, ``vocabulary/`` and ``weights.th``; only when that
folder is missing or empty does it download ``<model_type>.tar.gz`` from the hub. The BERT
encoder named in config.json (``model_name``) is then opened with transformers'
``AutoTokenizer`` / ``AutoConfig`` — a hub id, unless the site rewrote it to a local folder
(its weights come from weights.th, so the encoder folder needs only config and tokenizer files).

With transformers 5 it cannot run: radgraph's vendored allennlp calls tokenizer methods that
transformers 5 removed (``encode_plus`` when the model is built, ``build_inputs_with_special_
tokens`` at the first report). ``compatibility_problem()`` detects this, and ``configure()``
fails at start-up with that message instead of failing on the first study. docs/models.md
has the details.
"""
from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from .errors import BackendLoadError
from .spec import BackendSpec

log = logging.getLogger(__name__)

# The tokenizer methods radgraph's allennlp code calls that transformers 5 no longer has.
REQUIRED_TOKENIZER_METHODS = ("encode_plus", "build_inputs_with_special_tokens")


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def compatibility_problem() -> str | None:
    """Why radgraph cannot run in this environment, or None when it can."""
    if importlib.util.find_spec("radgraph") is None:
        return "the radgraph package is not installed"
    from transformers import PreTrainedTokenizerFast

    missing = [name for name in REQUIRED_TOKENIZER_METHODS
               if not hasattr(PreTrainedTokenizerFast, name)]
    if not missing:
        return None
    calls = " and ".join(f"tokenizer.{name}()" for name in missing)
    return (f"radgraph {_version('radgraph')} cannot run with transformers "
            f"{_version('transformers')}: its bundled allennlp code calls {calls}, which "
            "transformers 5 removed (see 'RadGraph and transformers 5' in docs/models.md); "
            "use RADREVIEW_EXTRACTOR=builtin")


def _encoder_names(config: Any) -> list[str]:
    names = []
    try:
        names.append(config["dataset_reader"]["token_indexers"]["bert"]["model_name"])
        names.append(config["model"]["embedder"]["token_embedders"]["bert"]["model_name"])
    except (KeyError, TypeError):
        pass
    return list(dict.fromkeys(name for name in names if isinstance(name, str)))


def _encoder_available(name: str) -> bool:
    if os.path.isdir(name):
        return (Path(name) / "config.json").is_file()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        return isinstance(try_to_load_from_cache(name, "config.json"), str)
    except Exception:  # a malformed repo id
        return False


def check_radgraph_folder(path: Path, model_type: str) -> list[str]:
    """What is missing from a radgraph model folder, in the words an operator needs."""
    model_dir = path / model_type
    if not model_dir.is_dir():
        return [f"folder {path} has no {model_type}/ subfolder (unpack {model_type}.tar.gz "
                f"from the radgraph model files into {model_dir})"]
    problems = [f"{model_dir} has no {name}" for name in ("config.json", "weights.th")
                if not (model_dir / name).is_file()]
    if not (model_dir / "vocabulary").is_dir():
        problems.append(f"{model_dir} has no vocabulary/ folder")
    if (model_dir / "config.json").is_file():
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return problems + [f"{model_dir / 'config.json'} is not readable JSON ({exc})"]
        names = _encoder_names(config)
        if not names:
            problems.append(f"{model_dir / 'config.json'} names no BERT encoder (model_name)")
        for name in names:
            if not _encoder_available(name):
                problems.append(
                    f"{model_dir / 'config.json'} names the encoder {name!r}, which is neither "
                    "a local folder with a config.json nor in the Hugging Face cache; point "
                    "model_name at a local copy of the encoder's config and tokenizer files")
    return problems


class RadGraphExtractor:
    """``Extractor`` over ``radgraph.RadGraph``; graphs converted by ``workers.nlp.graph``."""

    def __init__(self, spec: BackendSpec) -> None:
        problem = compatibility_problem()
        if problem:
            raise BackendLoadError(f"{spec.setting}: {problem}")
        problems = check_radgraph_folder(spec.path, spec.option("model_type"))
        if problems:
            raise BackendLoadError(f"{spec.setting}: " + "; ".join(problems))
        from radgraph import RadGraph

        device = spec.option("device")
        if device == "auto":
            import torch
            device = "cuda" if torch.cuda.is_available() else "cpu"
        cuda = -1 if device == "cpu" else int(device.partition(":")[2] or 0)
        self.spec = spec
        self.model_type: str = spec.option("model_type")
        self.name: str = spec.option("name") or self.model_type
        # RadGraph prints its device choice on stdout; keep worker output clean.
        with contextlib.redirect_stdout(io.StringIO()):
            self.model = RadGraph(model_type=self.model_type, model_cache_dir=str(spec.path),
                                  cuda=cuda)
        self._lock = threading.Lock()
        log.info("%s: loaded radgraph %s from %s", spec.setting, self.model_type, spec.path)

    def annotate(self, text: str) -> dict[str, Any]:
        """radgraph's own annotation of one report: {"text", "entities": {...}, ...}."""
        with self._lock, contextlib.redirect_stdout(io.StringIO()):
            result = self.model([text])
        return result["0"]

    def extract(self, text: str) -> Any:
        from workers.nlp.graph import graph_from_radgraph

        return graph_from_radgraph(self.annotate(text), text)
