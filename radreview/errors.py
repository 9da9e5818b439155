"""The one error-with-a-message type of the web layer.

A ``ServiceError`` carries a message written for the person using the site (an upload refused,
a review decision not allowed, a PACS that does not answer); views and commands show
``exc.message`` (the same as ``str(exc)``) as it is. Each service subclasses it, keeping
``ValueError`` as a second base where callers caught that before. The worker layer's
counterpart is ``workers.errors.WorkerError``.
"""
from __future__ import annotations


class ServiceError(Exception):
    """An error whose message is written for a person, not a traceback."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message
