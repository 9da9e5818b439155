"""The embedded default's broker writes each message whole before a worker can take it
(radreview/jobs/filesystem_transport.py): kombu's own transport created the file first and wrote
into it after, and a worker that took the empty file stopped on a JSONDecodeError."""
from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path
from queue import Empty

import pytest
from django.conf import settings
from kombu import Connection

from radreview.celery import app
from radreview.jobs import filesystem_transport
from radreview.jobs.broker import RUN_STAGE_TASK, _filesystem_ids


@pytest.fixture
def channel(tmp_path):
    folders = {name: tmp_path / name for name in ("queue", "processed", "control")}
    for folder in folders.values():
        folder.mkdir()
    connection = Connection("filesystem://", transport=filesystem_transport.Transport,
                            transport_options={
                                "data_folder_in": str(folders["queue"]),
                                "data_folder_out": str(folders["queue"]),
                                "processed_folder": str(folders["processed"]),
                                "control_folder": str(folders["control"]),
                                "store_processed": False})
    yield connection.default_channel
    connection.close()


def test_a_worker_that_looks_while_a_message_is_written_finds_none(channel, monkeypatch):
    # The moment between starting the message's file and its content: a worker's look then.
    module = sys.modules[type(channel)._put.__module__]
    encode, looked = module.dumps, []

    def dumps_while_a_worker_looks(payload):
        with pytest.raises(Empty):
            channel._get("cpu")
        looked.append(True)
        return encode(payload)

    monkeypatch.setattr(module, "dumps", dumps_while_a_worker_looks)
    channel._put("cpu", {"body": "a study's next stage"})
    assert looked == [True]
    assert channel._get("cpu") == {"body": "a study's next stage"}
    assert list(os.scandir(channel.data_folder_in)) == []


def test_a_failed_write_leaves_nothing_and_loses_no_other_message(channel, monkeypatch):
    channel._put("cpu", {"n": 1})
    channel._put("cpu", {"n": 2})

    def refuse(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(filesystem_transport.os, "replace", refuse)
    with pytest.raises(Exception, match="Cannot add file"):
        channel._put("cpu", {"n": 3})
    assert not [e.name for e in os.scandir(channel.data_folder_in)
                if e.name.endswith(filesystem_transport.PARTIAL)]
    taken = [channel._get("cpu")["n"], channel._get("cpu")["n"]]
    assert sorted(taken) == [1, 2]
    with pytest.raises(Empty):
        channel._get("cpu")


@pytest.mark.skipif(not app.conf.broker_url.startswith("filesystem"),
                    reason="the embedded default's broker")
def test_the_app_sends_through_it_and_the_reconciler_reads_what_it_sent():
    with app.connection_for_write() as connection:
        assert type(connection.transport) is filesystem_transport.Transport
    queue = "transport-test"  # no worker takes this queue
    app.send_task(RUN_STAGE_TASK, args=[987_654], queue=queue)
    folder = Path(settings.CELERY_BROKER_TRANSPORT_OPTIONS["data_folder_in"])
    sent = list(folder.glob(f"*.{queue}.msg"))
    try:
        assert len(sent) == 1
        assert 987_654 in _filesystem_ids()
    finally:
        for path in sent:
            path.unlink()


def test_a_wait_for_messages_ends_soon_so_a_stop_request_is_seen(channel):
    # Celery's loop asks with a 2 s wait and looks for SIGTERM only between asks.
    started = time.monotonic()
    with pytest.raises(socket.timeout):
        channel.connection.client.drain_events(timeout=2.0)
    assert time.monotonic() - started < 1.0
