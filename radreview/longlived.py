"""Keep a process's long-lived objects out of the garbage collector's full passes.

CPython's full ("generation 2") collection walks every object the collector tracks. A web worker
holds about 200,000 of them once Django and the app are loaded, a Celery worker about 700,000
once its models are; a full pass then stops every thread of the process for 100-400 ms on the
2-core development box (docs/operations.md, "Pauses of the garbage collector"), in the middle of
the decisions or the stage it is serving. Almost all of those objects live as long as the
process: ``gc.freeze()`` moves them to a permanent generation that collections skip, so a full
pass walks only what was made since. A collection first, so that garbage is not frozen with them.

Frozen objects are still freed when nothing refers to them; only a reference cycle among them
would never be collected. So a process freezes at the points where it has just loaded what it
keeps (the web app at start, a worker after a stage's first run, when its models are loaded
and the job's own objects are gone), not again and again.
"""
from __future__ import annotations

import atexit
import gc

_frozen_after: set[str] = set()


def freeze_long_lived() -> None:
    gc.collect()
    gc.freeze()


# At exit the frozen objects go back to the collector, so that the interpreter's last collections
# free them: extension modules check at their teardown that their objects were freed (nanobind,
# through torch, prints hundreds of "leaked" lines otherwise).
atexit.register(gc.unfreeze)


def freeze_after_first(name: str) -> bool:
    """Freeze the first time ``name`` (a stage that loads models) has run in this process."""
    if name in _frozen_after:
        return False
    _frozen_after.add(name)
    freeze_long_lived()
    return True
