"""Exceptions raised by the model roles and their backends."""
from __future__ import annotations

from workers.errors import WorkerError


class BackendError(WorkerError):
    """Base class for every error raised by workers.backends."""


class BackendConfigError(BackendError):
    """A role's setting is invalid: unknown kind or option, missing folder or files, bad URL.

    Raised by ``configure()`` at process start, before any model is loaded. The message names
    the environment variable (``RADREVIEW_LLM``, ...) so an operator knows what to fix.
    """


class BackendLoadError(BackendError):
    """A backend that passed validation could not be loaded (CUDA missing, corrupt weights, ...)."""


class BackendRequestError(BackendError):
    """A request to a loaded backend failed (HTTP error after retries, generation failure)."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class StructuredOutputError(BackendError):
    """A model twice failed to return JSON that satisfies the task's schema.

    The stage that asked for it must fail: there is no silent default.
    """

    def __init__(self, task: str, model: str, errors: list[str], last_reply: str) -> None:
        self.task = task
        self.model = model
        self.errors = errors
        self.last_reply = last_reply
        excerpt = last_reply if len(last_reply) <= 300 else last_reply[:300] + "…"
        super().__init__(
            f"{task}: model {model} did not return valid JSON after {len(errors)} attempts "
            f"({'; then '.join(errors)}). Last reply: {excerpt!r}"
        )
