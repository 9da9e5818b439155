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
has the details. The checks are ``radgraph_checks.py``'s, so that the start-up check in
``spec.py`` runs them without importing this module (which imports ``spec``).
"""
from __future__ import annotations

import contextlib
import io
import logging
import threading
from typing import Any

from workers.nlp.graph import graph_from_radgraph

from .errors import BackendLoadError
from .radgraph_checks import check_radgraph_folder, compatibility_problem
from .spec import BackendSpec

log = logging.getLogger(__name__)

class RadGraphExtractor:
    """``Extractor`` over ``radgraph.RadGraph``; graphs converted by ``workers.nlp.graph``."""

    def __init__(self, spec: BackendSpec) -> None:
        problem = compatibility_problem()
        if problem:
            raise BackendLoadError(f"{spec.setting}: {problem}")
        problems = check_radgraph_folder(spec.path, spec.option("model_type"))
        if problems:
            raise BackendLoadError(f"{spec.setting}: " + "; ".join(problems))
        from radgraph import RadGraph  # noqa: PLC0415 - defer radgraph

        device = spec.option("device")
        if device == "auto":
            import torch  # noqa: PLC0415 - defer torch
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

        return graph_from_radgraph(self.annotate(text), text)
