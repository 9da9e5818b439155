"""kombu's filesystem transport (the embedded default's broker), with every message written
whole before a worker can see it.

kombu writes a message by creating its file in the queue folder and then writing into it. A
worker that lists the folder in between takes the still-empty file, fails to decode it, and
Celery stops the whole worker ("Unrecoverable error: JSONDecodeError"), leaving every study
queued behind it until someone restarts the worker (seen in
tests/pipeline/test_reconcile_broker.py). Here a message is written under a name that neither a
worker nor the reconciler reads (``.part`` after ``.msg``) and then renamed into place; a
rename within a folder is atomic, so a reader finds a whole message or none. And a worker
waits at most a quarter second per ask, so it stops as soon as it is told to.

Selected by ``CELERY_BROKER_TRANSPORT`` in radreview/settings.py; Redis is unaffected.
"""
from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

PARTIAL = ".part"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written in full, then renamed into the queue."""
        # kombu's own naming: the time first, so a worker takes the older messages first.
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel

    # Celery's loop for a polled broker asks for messages with a 2 s wait and looks for a
    # shutdown request only between two asks, so a SIGTERM waited up to 2 s before the
    # worker began to stop. The folder is polled every ``polling_interval`` either way; a
    # shorter wait per ask only lets the loop look for the request sooner.
    LONGEST_WAIT = 0.25

    def drain_events(self, connection, timeout=None):
        if timeout is not None:
            timeout = min(timeout, self.LONGEST_WAIT)
        return super().drain_events(connection, timeout=timeout)
