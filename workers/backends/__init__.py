"""Model roles and their backends. Plain Python: no Django.

Use a role through the registry; never import a backend module directly::

    from workers.backends import registry
    from workers.backends.structured import complete_prompt

    model = registry.llm()            # None → the built-in rule engine serves the task
    if model is None:
        verdict = rule_based(...)
    else:
        verdict, provenance = complete_prompt(model, get_prompt("entailment"), ...)

Importing this package loads no model and imports neither torch nor transformers; backends
import their libraries when they load. docs/models.md describes the settings.
"""
from .errors import (
                     BackendConfigError,
                     BackendError,
                     BackendLoadError,
                     BackendRequestError,
                     StructuredOutputError,
)
from .registry import (
                     ProbeResult,
                     RoleStatus,
                     configure,
                     configure_from_environ,
                     describe,
                     extractor,
                     generator,
                     get,
                     image_encoder,
                     is_configured,
                     llm,
                     probe,
                     reset,
                     set_cache_dir,
                     text_embedder,
)
from .roles import (
                     BUILTIN_ENGINE_NAME,
                     Extractor,
                     Generator,
                     ImageEncoder,
                     ImageInput,
                     Message,
                     TextEmbedder,
                     TextModel,
)
from .spec import ROLES, BackendSpec, parse_spec, validate_specs

__all__ = [
    "BUILTIN_ENGINE_NAME", "ROLES", "BackendConfigError", "BackendError", "BackendLoadError",
    "BackendRequestError", "BackendSpec", "Extractor", "Generator", "ImageEncoder", "ImageInput",
    "Message", "ProbeResult", "RoleStatus", "StructuredOutputError", "TextEmbedder", "TextModel",
    "configure", "configure_from_environ", "describe", "extractor", "generator", "get",
    "image_encoder", "is_configured", "llm", "parse_spec", "probe", "reset", "set_cache_dir",
    "text_embedder",
    "validate_specs",
]
