"""The Prompt record and the registry of prompts by task.

A prompt module (one per task, in this package) builds its ``Prompt`` and calls ``register``
at import time. ``get_prompt(task)`` imports every module of the package the first time it is
called, so adding a task is adding a module; nothing else needs editing.

Templates use ``string.Template`` placeholders (``$report``, ``${sentence}``): JSON examples
in a prompt keep their braces as they are. A literal dollar sign is written ``$$``.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
import threading
from dataclasses import dataclass
from string import Template
from typing import Any

from jsonschema import Draft202012Validator

_VERSION = re.compile(r"(?P<task>[a-z][a-z0-9_]*)/v(?P<number>\d+)")


@dataclass(frozen=True)
class Prompt:
    """One task's prompt: ``version`` ("entailment/v1") is stored with every result it produced.

    Change the wording → bump the version, so stored detections stay traceable to the exact
    text that produced them.
    """

    task: str
    version: str
    system: str
    user: str
    #: JSON schema the reply must satisfy (None for free text, e.g. a generated report).
    schema: dict[str, Any] | None = None
    #: A sensible reply budget for the task; callers may ask for less or more.
    max_tokens: int = 512

    def __post_init__(self) -> None:
        match = _VERSION.fullmatch(self.version)
        if not match or match.group("task") != self.task:
            raise ValueError(f"prompt version {self.version!r} must read '{self.task}/v<N>'")
        for name, text in (("system", self.system), ("user", self.user)):
            template = Template(text)
            if not template.is_valid():
                raise ValueError(f"{self.version}: the {name} template has a stray '$' "
                                 "(write $$ for a dollar sign)")
        if self.schema is not None:

            Draft202012Validator.check_schema(self.schema)

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(Template(self.system).get_identifiers()
                         + Template(self.user).get_identifiers())

    def _fill(self, variables: dict[str, Any]) -> tuple[str, str]:
        missing = sorted(self.variables - set(variables))
        unknown = sorted(set(variables) - self.variables)
        if missing or unknown:
            parts = []
            if missing:
                parts.append(f"missing {', '.join(missing)}")
            if unknown:
                parts.append(f"unknown {', '.join(unknown)}")
            raise ValueError(f"prompt {self.version}: {'; '.join(parts)} "
                             f"(expects {', '.join(sorted(self.variables)) or 'no variables'})")
        values = {key: str(value) for key, value in variables.items()}
        return (Template(self.system).substitute(values).strip(),
                Template(self.user).substitute(values).strip())

    def render(self, **variables: Any) -> list[dict[str, str]]:
        """Chat messages: the system turn (when there is one), then the user turn."""
        system, user = self._fill(variables)
        messages = [{"role": "system", "content": system}] if system else []
        messages.append({"role": "user", "content": user})
        return messages

    def text(self, **variables: Any) -> str:
        """System and user text as one instruction, for roles that take a single string."""
        system, user = self._fill(variables)
        return f"{system}\n\n{user}" if system else user


@dataclass(frozen=True)
class Provenance:
    """Which prompt version and which model produced a result; both None for the rule engine."""

    prompt_version: str | None
    model: str | None

    @classmethod
    def of(cls, prompt: Prompt | None, model: Any) -> Provenance:
        """Provenance of a result that ``model`` (a role object, a name or None) produced."""
        if model is None:
            return cls(None, None)
        name = model if isinstance(model, str) else getattr(model, "name", None) or str(model)
        return cls(prompt.version if prompt is not None else None, name)

    def as_fields(self) -> dict[str, str | None]:
        """Keyword arguments for ``workers.types.Detection``."""
        return {"prompt_version": self.prompt_version, "model": self.model}


_registry: dict[str, Prompt] = {}
_lock = threading.Lock()
_discovered = False


def register(prompt: Prompt) -> Prompt:
    with _lock:
        existing = _registry.get(prompt.task)
        if existing is not None and existing != prompt:
            raise ValueError(f"two different prompts for task {prompt.task!r}: "
                             f"{existing.version} and {prompt.version}")
        _registry[prompt.task] = prompt
    return prompt


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    package = importlib.import_module(__package__)
    for module in pkgutil.iter_modules(package.__path__):
        if not module.name.startswith("_") and module.name != "base":
            importlib.import_module(f"{__package__}.{module.name}")
    _discovered = True


def get_prompt(task: str) -> Prompt:
    _discover()
    try:
        return _registry[task]
    except KeyError:
        raise KeyError(f"no prompt for task {task!r}; known tasks: "
                       f"{', '.join(sorted(_registry)) or 'none'}") from None


def all_prompts() -> list[Prompt]:
    _discover()
    return sorted(_registry.values(), key=lambda prompt: prompt.task)
