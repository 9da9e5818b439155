"""The one error-with-a-message type of the worker layer.

A ``WorkerError`` carries a message meant for the person who runs the command or reads the
study page (a bad input line, a missing model file, a stage that cannot run); callers show
``str(exc)`` as it is. Each concern subclasses it (``BackendError``, ``StageError``,
``JsonlError``, ...), keeping ``ValueError`` as a second base where callers caught that before.
"""
from __future__ import annotations


class WorkerError(Exception):
    """An error whose message is written for a person, not a traceback."""
