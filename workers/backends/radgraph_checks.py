"""What the radgraph extractor needs, checked without loading it: whether the installed
transformers can run radgraph's bundled allennlp code, and what a model folder lacks.

Used by ``spec.py`` (the start-up check of RADREVIEW_EXTRACTOR) and by ``radgraph_extractor.py``
(which refuses to load otherwise); apart from both so that neither imports the other.
"""
from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

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
    from transformers import PreTrainedTokenizerFast  # noqa: PLC0415 - defer transformers

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
        from huggingface_hub import try_to_load_from_cache  # noqa: PLC0415 - optional huggingface_hub
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
