"""Which stage jobs the broker still holds a message for.

The reconciler (reconcile.py) sends a queued job again only when no message for it is waiting,
so a long but healthy queue is not doubled every pass. Two transports can be read: Redis (the
queue lists and the hash of delivered-but-unacknowledged messages) and kombu's filesystem
transport (one file per message). Any other broker answers None: "unknown", and the reconciler
then goes by time alone (a duplicate message is harmless, only one worker can claim a job).
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

from django.conf import settings

from radreview.celery import app as celery_app

logger = logging.getLogger(__name__)

RUN_STAGE_TASK = "workers.tasks.run_stage"
# kombu's Redis transport keeps messages delivered with acks_late here until they are acked.
REDIS_UNACKED_KEY = "unacked"


def _job_id(message: dict) -> int | None:
    """The job id of a run_stage message (Celery protocol 2 headers), else None."""
    headers = message.get("headers") or {}
    if headers.get("task") != RUN_STAGE_TASK:
        return None
    try:
        args = json.loads(headers.get("argsrepr") or "")
    except ValueError:
        return None
    return args[0] if isinstance(args, list) and args and isinstance(args[0], int) else None


def _ids(raw_messages) -> set[int]:
    ids = set()
    for raw in raw_messages:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if isinstance(message, list) and message:  # an unacked entry: [message, exchange, key]
            message = message[0]
        if isinstance(message, dict) and (job_id := _job_id(message)) is not None:
            ids.add(job_id)
    return ids


def _filesystem_ids() -> set[int]:
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    raw = []
    for path in folder.glob("*.msg"):
        try:
            raw.append(path.read_bytes())
        except FileNotFoundError:  # fetched by a worker while we listed
            continue
    return _ids(raw)


def _redis_ids(queues: list[str]) -> set[int]:
    with celery_app.connection_for_read() as connection:
        client = connection.default_channel.client
        raw = [item for queue in queues for item in client.lrange(queue, 0, -1)]
        raw.extend(client.hvals(REDIS_UNACKED_KEY))
    return _ids(raw)


def waiting_job_ids(queues: list[str]) -> set[int] | None:
    """Ids of the jobs with a message in the broker; None when this broker cannot be read."""
    url = settings.CELERY_BROKER_URL
    if url.startswith("filesystem"):
        return _filesystem_ids()
    if url.startswith(("redis://", "rediss://", "redis+socket://")):
        return _redis_ids(queues)
    return None
