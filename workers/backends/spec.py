"""Backend specs: one string per role, parsed and checked before anything is loaded.

Grammar (docs/models.md has the full table)::

    spec     := "builtin" | "builtin-static" | kind ":" location [ "?" options ]
    options  := key "=" value { "&" key "=" value }

``location`` is a local folder (absolute, ``~`` expanded, relative paths resolved against the
working directory) or, for ``openai``, the base URL of an OpenAI-compatible server
(``http://gpu-host:8000/v1``). Examples::

    transformers:/models/llm?device=cuda&dtype=bfloat16&max_new_tokens=512
    openai:http://gpu-host:8000/v1?model=NAME&api_key_env=OPENAI_API_KEY&timeout=60
    sentence-transformers:/models/minilm
    open_clip:/models/biomedclip
    radgraph:/models/radgraph?model_type=radgraph-xl

``validate_specs()`` parses every role and checks what can be checked without loading a model:
kind allowed for the role, option names and values, folder and required files present, URL
well formed, API key variable set. Each problem is reported with the role's setting name.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from .errors import BackendConfigError
from .radgraph_checks import check_radgraph_folder, compatibility_problem

BUILTIN = "builtin"
# text_embedder only: a static word-piece table distilled from the built-in model
# (workers/backends/static_embedder.py); like "builtin", it takes no location or options.
BUILTIN_STATIC = "builtin-static"


@dataclass(frozen=True)
class RoleInfo:
    name: str
    setting: str
    kinds: tuple[str, ...]
    purpose: str


ROLES: dict[str, RoleInfo] = {
    info.name: info
    for info in (
        RoleInfo("llm", "RADREVIEW_LLM", (BUILTIN, "transformers", "openai"),
                 "prompt → text/JSON: entailment, judge, key phrases, rewrites, correction"),
        RoleInfo("generator", "RADREVIEW_GENERATOR", (BUILTIN, "transformers", "openai"),
                 "images → report, at a temperature"),
        RoleInfo("text_embedder", "RADREVIEW_TEXT_EMBEDDER",
                 (BUILTIN, BUILTIN_STATIC, "sentence-transformers"),
                 "text → normalised vector"),
        RoleInfo("image_encoder", "RADREVIEW_IMAGE_ENCODER", (BUILTIN, "open_clip"),
                 "image → normalised vector"),
        RoleInfo("extractor", "RADREVIEW_EXTRACTOR", (BUILTIN, "radgraph"),
                 "report text → RadGraph entities and relations"),
    )
}

# Accepted spellings of a kind -> its canonical name.
_KIND_ALIASES = {
    "builtin": BUILTIN,
    "transformers": "transformers",
    "hf": "transformers",
    "openai": "openai",
    "sentence-transformers": "sentence-transformers",
    "sentence_transformers": "sentence-transformers",
    "open_clip": "open_clip",
    "open-clip": "open_clip",
    "openclip": "open_clip",
    "radgraph": "radgraph",
}


# --- option parsers ------------------------------------------------------------------------

def _int(minimum: int) -> Callable[[str], int]:
    def parse(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"expected an integer, got {value!r}") from None
        if number < minimum:
            raise ValueError(f"must be at least {minimum}, got {number}")
        return number
    return parse


def _float(minimum: float, *, strict: bool = False) -> Callable[[str], float]:
    def parse(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"expected a number, got {value!r}") from None
        if number != number or number < minimum or (strict and number == minimum):
            bound = "greater than" if strict else "at least"
            raise ValueError(f"must be {bound} {minimum:g}, got {value}")
        return number
    return parse


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if value.lower() not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}; got {value!r}")
        return value.lower()
    return parse


def _device(value: str) -> str:
    value = value.lower()
    if value in ("auto", "cpu", "cuda") or re.fullmatch(r"cuda:\d+", value):
        return value
    raise ValueError(f"expected auto, cpu, cuda or cuda:N; got {value!r}")


def _env_name(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise ValueError(f"{value!r} is not an environment variable name")
    return value


def _flag(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"expected true or false, got {value!r}")


def _text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value.strip()


@dataclass(frozen=True)
class Option:
    parse: Callable[[str], Any]
    default: Any = None
    required: bool = False


_TORCH = {"device": Option(_device, "auto"),
          "dtype": Option(_choice("auto", "float32", "bfloat16", "float16"), "auto"),
          # Runs Python files shipped in the model folder (CheXagent, MAIRA-2 need it).
          "trust_remote_code": Option(_flag, False),
          "name": Option(_text)}
_HTTP = {"model": Option(_text, required=True),
         "api_key_env": Option(_env_name),
         "timeout": Option(_float(0, strict=True), 60.0),
         "retries": Option(_int(0), 3),
         "backoff": Option(_float(0), 1.0),
         "concurrency": Option(_int(1), 4),
         "name": Option(_text)}

OPTIONS: dict[tuple[str, str], dict[str, Option]] = {
    ("llm", "transformers"): {**_TORCH, "max_new_tokens": Option(_int(1), 512),
                              "batch_size": Option(_int(1), 8)},
    ("llm", "openai"): {**_HTTP, "response_format": Option(
        _choice("none", "json_object", "json_schema"), "none")},
    ("generator", "transformers"): {**_TORCH, "max_new_tokens": Option(_int(1), 512)},
    ("generator", "openai"): {**_HTTP, "timeout": Option(_float(0, strict=True), 120.0),
                              "max_image_side": Option(_int(64), 1024)},
    ("text_embedder", "sentence-transformers"): {"device": Option(_device, "cpu"),
                                                 "batch_size": Option(_int(1), 32),
                                                 "precision": Option(_choice(
                                                     "auto", "float32", "bfloat16"), "auto"),
                                                 "name": Option(_text)},
    ("image_encoder", "open_clip"): {"device": Option(_device, "auto"),
                                     "batch_size": Option(_int(1), 16),
                                     "fit": Option(_choice("config", "crop", "letterbox",
                                                           "squash"), "config"),
                                     "name": Option(_text)},
    ("extractor", "radgraph"): {"model_type": Option(_choice("radgraph", "radgraph-xl"),
                                                     "radgraph-xl"),
                                "device": Option(_device, "cpu"),
                                "name": Option(_text)},
}


@dataclass(frozen=True)
class BackendSpec:
    """One role's parsed setting. ``options`` holds every known option, defaults filled in."""

    role: str
    kind: str
    location: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    raw: str = BUILTIN

    @property
    def setting(self) -> str:
        return ROLES[self.role].setting

    @property
    def is_builtin(self) -> bool:
        """Served by what ships with RadReview: no folder, URL or options."""
        return self.kind in (BUILTIN, BUILTIN_STATIC)

    @property
    def path(self) -> Path:
        return Path(self.location)

    @property
    def display_location(self) -> str:
        """The path or URL, with any user:password in a URL removed (safe to show and log)."""
        if self.kind != "openai":
            return self.location
        parts = urlsplit(self.location)
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        return urlunsplit((parts.scheme, host, parts.path, "", ""))

    def option(self, name: str) -> Any:
        return self.options.get(name)

    def describe(self) -> str:
        """The spec as an operator would write it (URL credentials removed)."""
        if self.is_builtin:
            return self.kind
        shown = [f"{key}={value}" for key, value in self.options.items()
                 if value is not None and value != OPTIONS[(self.role, self.kind)][key].default]
        query = "?" + "&".join(shown) if shown else ""
        return f"{self.kind}:{self.display_location}{query}"


def parse_spec(role: str, text: str) -> BackendSpec:
    """Parse one role's setting. Raises BackendConfigError naming the setting."""
    if role not in ROLES:
        raise BackendConfigError(f"unknown model role {role!r}; roles are {', '.join(ROLES)}")
    setting = ROLES[role].setting
    raw = (text or "").strip()

    def fail(message: str) -> BackendConfigError:
        return BackendConfigError(f"{setting}: {message}")

    if not raw:
        raise fail("is empty; use 'builtin' or '<kind>:<location>?key=value&…'")
    if raw.lower() == BUILTIN:
        return BackendSpec(role=role, kind=BUILTIN, raw=raw)
    if raw.lower() == BUILTIN_STATIC and BUILTIN_STATIC in ROLES[role].kinds:
        return BackendSpec(role=role, kind=BUILTIN_STATIC, raw=raw)
    match = re.fullmatch(r"([A-Za-z][A-Za-z0-9_-]*):(.*)", raw, re.S)
    if not match:
        raise fail(f"{raw!r} is not 'builtin' nor '<kind>:<location>?key=value&…'")
    kind = _KIND_ALIASES.get(match.group(1).lower())
    allowed = ROLES[role].kinds
    if kind is None or kind not in allowed:
        raise fail(f"unknown backend kind {match.group(1)!r} for the {role} role; "
                   f"use one of: {', '.join(allowed)}")
    if kind == BUILTIN:
        raise fail("'builtin' takes no location or options")
    location, _, query = match.group(2).partition("?")
    location = location.strip()
    if not location:
        raise fail(f"{kind} needs a location: '{kind}:<folder or URL>'")
    if kind == "openai":
        location = _normalise_url(setting, location)
    else:
        location = str(Path(os.path.expanduser(location)).resolve())
    options = _parse_options(setting, role, kind, query)
    return BackendSpec(role=role, kind=kind, location=location, options=options, raw=raw)


def _parse_options(setting: str, role: str, kind: str, query: str) -> dict[str, Any]:
    schema = OPTIONS[(role, kind)]
    given: dict[str, str] = {}
    if query.strip():
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise BackendConfigError(
                f"{setting}: options {query!r} are not 'key=value&key=value'") from None
        for key, value in pairs:
            if key in given:
                raise BackendConfigError(f"{setting}: option {key!r} is given twice")
            given[key] = value
    unknown = sorted(set(given) - set(schema))
    if unknown:
        raise BackendConfigError(
            f"{setting}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)} for {kind}; "
            f"known options: {', '.join(sorted(schema))}")
    options: dict[str, Any] = {}
    for key, option in schema.items():
        if key in given:
            try:
                options[key] = option.parse(given[key])
            except ValueError as exc:
                raise BackendConfigError(f"{setting}: option {key}: {exc}") from None
        elif option.required:
            raise BackendConfigError(f"{setting}: {kind} needs the option {key}=…")
        else:
            options[key] = option.default
    return options


def _normalise_url(setting: str, location: str) -> str:
    parts = urlsplit(location)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise BackendConfigError(
            f"{setting}: {location!r} is not an http(s) URL such as http://gpu-host:8000/v1")
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise BackendConfigError(f"{setting}: {location!r} has an invalid port") from None
    if parts.fragment:
        raise BackendConfigError(f"{setting}: {location!r} must not carry a #fragment")
    path = parts.path.rstrip("/")
    # Accept the full endpoint too; the client appends /chat/completions itself.
    if path.endswith("/chat/completions"):
        path = path[: -len("/chat/completions")]
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


# --- what can be checked before loading ----------------------------------------------------

_HF_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
               "pytorch_model.bin.index.json")
_HF_TOKENIZER = ("tokenizer.json", "tokenizer_config.json", "tokenizer.model", "vocab.json")
OPEN_CLIP_WEIGHTS = ("open_clip_model.safetensors", "open_clip_pytorch_model.safetensors",
                     "open_clip_pytorch_model.bin", "open_clip_pytorch_model.pth")


def check_spec(spec: BackendSpec, environ: Mapping[str, str] | None = None) -> list[str]:
    """Problems with a parsed spec that show before loading, each prefixed by the setting."""
    if spec.is_builtin:
        return []
    environ = os.environ if environ is None else environ
    checker = _CHECKS[spec.kind]
    return [f"{spec.setting}: {problem}" for problem in checker(spec, environ)]


def _folder(spec: BackendSpec) -> list[str]:
    path = spec.path
    if not path.exists():
        return [f"folder {path} does not exist"]
    if not path.is_dir():
        return [f"{path} is not a folder"]
    return []


def _read_json(path: Path) -> tuple[Any, str | None]:
    try:
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, ValueError) as exc:
        return None, f"{path} is not readable JSON ({exc})"


def _has_chat_template(path: Path, *configs: str) -> bool:
    if (path / "chat_template.jinja").is_file() or (path / "chat_template.json").is_file():
        return True
    for name in configs:
        data, _ = _read_json(path / name) if (path / name).is_file() else (None, None)
        if isinstance(data, dict) and data.get("chat_template"):
            return True
    return False


def _check_transformers(spec: BackendSpec, environ: Mapping[str, str]) -> list[str]:
    problems = _folder(spec)
    if problems:
        return problems
    path = spec.path
    if not (path / "config.json").is_file():
        problems.append(f"folder {path} has no config.json (not a transformers model folder)")
    has_weights = any((path / name).is_file() for name in _HF_WEIGHTS) or any(
        path.glob("*.safetensors"))
    if not has_weights:
        problems.append(f"folder {path} has no weights (model.safetensors, "
                        "model.safetensors.index.json or pytorch_model.bin)")
    if not any((path / name).is_file() for name in _HF_TOKENIZER):
        problems.append(f"folder {path} has no tokenizer (tokenizer.json or "
                        "tokenizer_config.json)")
    if spec.role == "generator":
        if not ((path / "preprocessor_config.json").is_file()
                or (path / "processor_config.json").is_file()):
            problems.append(f"folder {path} has no image processor (preprocessor_config.json "
                            "or processor_config.json)")
        templated = _has_chat_template(path, "processor_config.json", "tokenizer_config.json")
    else:
        templated = _has_chat_template(path, "tokenizer_config.json")
    if not templated:
        problems.append(f"folder {path} has no chat template (chat_template.jinja or a "
                        "'chat_template' entry in tokenizer_config.json); use an "
                        "instruction-tuned model")
    return problems


def _check_openai(spec: BackendSpec, environ: Mapping[str, str]) -> list[str]:
    name = spec.option("api_key_env")
    if name and not environ.get(name):
        return [f"api_key_env={name} but the environment variable {name} is not set"]
    return []


def _check_sentence_transformers(spec: BackendSpec, environ: Mapping[str, str]) -> list[str]:
    problems = _folder(spec)
    if not problems and not ((spec.path / "modules.json").is_file()
                             or (spec.path / "config.json").is_file()):
        problems.append(f"folder {spec.path} has no modules.json or config.json "
                        "(not a sentence-transformers or transformers model folder)")
    return problems


def _check_open_clip(spec: BackendSpec, environ: Mapping[str, str]) -> list[str]:
    problems = _folder(spec)
    if problems:
        return problems
    path = spec.path
    config_path = path / "open_clip_config.json"
    if not config_path.is_file():
        problems.append(f"folder {path} has no open_clip_config.json")
    else:
        config, error = _read_json(config_path)
        if error:
            problems.append(error)
        elif not isinstance(config, dict) or not isinstance(config.get("model_cfg"), dict):
            problems.append(f"{config_path} has no 'model_cfg' object")
        else:
            model_cfg = config["model_cfg"]
            if not isinstance(model_cfg.get("vision_cfg"), dict):
                problems.append(f"{config_path} has no model_cfg.vision_cfg")
            if not isinstance(model_cfg.get("embed_dim"), int):
                problems.append(f"{config_path} has no integer model_cfg.embed_dim")
    if not any((path / name).is_file() for name in OPEN_CLIP_WEIGHTS):
        problems.append(f"folder {path} has no weights ({' or '.join(OPEN_CLIP_WEIGHTS[:3])})")
    return problems


def _check_radgraph(spec: BackendSpec, environ: Mapping[str, str]) -> list[str]:
    problems = _folder(spec)
    if problems:
        return problems
    problems = check_radgraph_folder(spec.path, spec.option("model_type"))
    if problems:
        return problems
    incompatible = compatibility_problem()
    return [incompatible] if incompatible else []


_CHECKS: dict[str, Callable[[BackendSpec, Mapping[str, str]], list[str]]] = {
    "transformers": _check_transformers,
    "openai": _check_openai,
    "sentence-transformers": _check_sentence_transformers,
    "open_clip": _check_open_clip,
    "radgraph": _check_radgraph,
}


def validate_specs(specs: Mapping[str, str | None],
                   environ: Mapping[str, str] | None = None) -> dict[str, BackendSpec]:
    """Parse and check every role's setting; a missing role is 'builtin'.

    Raises one BackendConfigError listing every problem found, each naming its setting.
    """
    unknown = sorted(set(specs) - set(ROLES))
    if unknown:
        raise BackendConfigError(f"unknown model role(s) {', '.join(unknown)}; "
                                 f"roles are {', '.join(ROLES)}")
    parsed: dict[str, BackendSpec] = {}
    problems: list[str] = []
    for role in ROLES:
        text = specs.get(role)
        try:
            spec = parse_spec(role, BUILTIN if text is None else text)
        except BackendConfigError as exc:
            problems.append(str(exc))
            continue
        found = check_spec(spec, environ)
        problems.extend(found)
        parsed[role] = spec
    if len(problems) == 1:
        raise BackendConfigError(problems[0])
    if problems:
        raise BackendConfigError(
            f"{len(problems)} model backend settings are invalid:\n  " + "\n  ".join(problems))
    return parsed


def specs_from_environ(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The role settings as the environment gives them (what Django's settings read too)."""
    environ = os.environ if environ is None else environ
    return {role: environ.get(info.setting, BUILTIN) for role, info in ROLES.items()}
