"""The DICOM receiver: a Storage SCP with Verification (C-ECHO), run as its own process by
``manage.py run_dicom_receiver`` (``scripts/run.sh`` starts it beside the web server).

pynetdicom answers each association in its own thread; each C-STORE goes to
``inbox.receive``. A housekeeping loop in the main thread turns quiet batches into studies,
hands overdue SR deliveries back to the workers and writes the heartbeat the setup page reads.
"""
from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import close_old_connections, connection
from pydicom.dataset import Dataset
from pynetdicom import AE, ALL_TRANSFER_SYNTAXES, StoragePresentationContexts, evt
from pynetdicom.sop_class import Verification

from . import delivery, inbox, status

logger = logging.getLogger(__name__)

SUCCESS = 0x0000
# C-STORE failure "Cannot understand" (0xC000-0xCFFF), with the reason in Error Comment.
CANNOT_UNDERSTAND = 0xC000
OUT_OF_RESOURCES = 0xA700


def _with_database(handler):
    """pynetdicom calls handlers on its own threads: give each call fresh DB connections and
    close them after, as Django does around a request."""
    def wrapped(event):
        close_old_connections()
        try:
            return handler(event)
        finally:
            connection.close()
    return wrapped


@_with_database
def handle_store(event) -> Dataset | int:
    calling_ae = event.assoc.requestor.ae_title.strip()
    try:
        data = event.encoded_dataset(include_meta=True)
        result = inbox.receive(data, calling_ae)
    except Exception:
        logger.exception("C-STORE from %s failed", calling_ae)
        return OUT_OF_RESOURCES
    if result.ok:
        return SUCCESS
    answer = Dataset()
    answer.Status = CANNOT_UNDERSTAND
    answer.ErrorComment = result.comment[:64]
    return answer


def handle_echo(event) -> int:
    return SUCCESS


def build_ae() -> AE:
    ae = AE(ae_title=settings.DICOM_AE_TITLE)
    for context in StoragePresentationContexts:
        ae.add_supported_context(context.abstract_syntax, ALL_TRANSFER_SYNTAXES)
    ae.add_supported_context(Verification)
    ae.require_called_aet = True
    if settings.DICOM_ALLOWED_AES:
        ae.require_calling_aet = list(settings.DICOM_ALLOWED_AES)
    ae.maximum_pdu_size = 0  # no limit on what we accept per PDU
    return ae


class Receiver:
    """The SCP in the background and the housekeeping loop in the calling thread."""

    def __init__(self, poll_seconds: float = 1.0):
        self.poll_seconds = poll_seconds
        self._stop = threading.Event()
        self._server = None

    def start(self) -> None:
        handlers = [(evt.EVT_C_STORE, handle_store), (evt.EVT_C_ECHO, handle_echo)]
        self._server = build_ae().start_server(
            (settings.DICOM_HOST, settings.DICOM_PORT), block=False, evt_handlers=handlers)
        logger.info("DICOM receiver %s listening on %s:%s", settings.DICOM_AE_TITLE,
                    settings.DICOM_HOST, settings.DICOM_PORT)

    def run_forever(self) -> None:
        beats = 0.0
        while not self._stop.is_set():
            self.housekeeping()
            beats -= self.poll_seconds
            if beats <= 0:
                status.record_heartbeat(settings.DICOM_AE_TITLE, settings.DICOM_HOST,
                                        settings.DICOM_PORT)
                beats = status.HEARTBEAT_SECONDS
            self._stop.wait(self.poll_seconds)

    def housekeeping(self) -> None:
        close_old_connections()
        for batch in inbox.due_batches():
            try:
                inbox.ingest(batch)
            except Exception:
                logger.exception("inbound batch %s could not be ingested; trying again", batch.pk)
        delivery.requeue_overdue()

    def stop(self) -> None:
        self._stop.set()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            status.clear_heartbeat()
