"""The HL7 listener: ORU^R01 results over MLLP from the dictation system or the RIS, each
answered with an ACK on the same connection (python-hl7's asyncio MLLP streams).

A message is stored or refused whole before its ACK is written (radreview/dictation/services.py
runs in one transaction in a worker thread, as Django's ORM is synchronous): AA when the report
was stored (attached to its study, or waiting for its images), AE with the reason when it could
not be matched or the database could not be reached (the sender sends it again), AR when the
message is not one RadReview takes. Logs carry no patient identifiers: the channel, the
message's state and the study id only.
"""
from __future__ import annotations

import asyncio
import logging
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, close_old_connections
from django.utils import timezone
from hl7.mllp import InvalidBlockError, start_hl7_server

from . import hl7_messages
from .services import DeliveryRefused, deliver

logger = logging.getLogger(__name__)

# Longest message read: the longest report and a generous envelope.
MESSAGE_LIMIT = 4 * settings.MAX_REPORT_CHARS + 64 * 1024
HEARTBEAT_KEY = "dictation:hl7-listener-heartbeat"
HEARTBEAT_SECONDS = 5


def _decode(block: bytes) -> str:
    try:
        return block.decode("utf-8")
    except UnicodeDecodeError:
        return block.decode("cp1252", errors="replace")


def answer(raw: str) -> str:
    """Store or refuse one message; its ACK."""
    message = None
    try:
        message = hl7_messages.parse(raw)
        sender = hl7_messages.sending_application(message)
        if settings.HL7_ALLOWED_SENDERS and sender not in settings.HL7_ALLOWED_SENDERS:
            return hl7_messages.ack(message, "AR", f"Sending application {sender or '(none)'} "
                                                   "is not allowed to deliver reports here.")
        delivered = deliver(hl7_messages.read_oru(message))
    except hl7_messages.MessageRefused as exc:
        logger.info("HL7 message refused (%s): %s", exc.code, exc.message)
        return hl7_messages.ack(message, exc.code, exc.message)
    except DeliveryRefused as exc:
        logger.info("HL7 report refused: the match failed")
        return hl7_messages.ack(message, "AE", exc.message)
    except DatabaseError:
        logger.warning("HL7 report not stored: the database did not answer")
        return hl7_messages.ack(message, "AE", "RadReview cannot store reports right now; "
                                               "send the message again later.")
    incoming = delivered.incoming
    if delivered.replayed:
        text = "Already received; nothing was stored twice."
    elif delivered.waiting:
        text = "Stored; it waits for its images (no study has this accession number yet)."
    else:
        text = f"Stored as the report of RadReview study #{incoming.study_id}."
    logger.info("HL7 report %s: %s%s", incoming.pk, incoming.state,
                " (again)" if delivered.replayed else "")
    return hl7_messages.ack(message, "AA", text)


def _answer_in_thread(raw: str) -> str:
    close_old_connections()  # a thread of the pool may hold a connection the database dropped
    return answer(raw)


async def _serve_connection(reader, writer) -> None:
    try:
        while not reader.at_eof():
            try:
                block = await reader.readblock()
            except asyncio.IncompleteReadError:
                break  # the sender closed the connection
            except (InvalidBlockError, ValueError) as exc:
                # Not MLLP framing, or longer than the limit: answer once and hang up.
                writer.writeblock(hl7_messages.ack(None, "AR", f"Not an MLLP block: {exc}")
                                  .encode())
                await writer.drain()
                break
            reply = await asyncio.to_thread(_answer_in_thread, _decode(block))
            writer.writeblock(reply.encode("utf-8"))
            await writer.drain()
    finally:
        writer.close()


class Listener:
    """The MLLP server on ``settings.HL7_HOST``/``HL7_PORT``, run by ``run_hl7_listener``."""

    def __init__(self, host: str | None = None, port: int | None = None):
        self.host = host or settings.HL7_HOST
        self.port = settings.HL7_PORT if port is None else port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None

    async def serve(self, on_ready=lambda listener: None) -> None:
        """Serve until ``stop``; ``on_ready(self)`` once listening (``port`` is then the bound
        port, when 0 asked for a free one)."""
        self._loop, self._stopped = asyncio.get_running_loop(), asyncio.Event()
        server = await start_hl7_server(_serve_connection, self.host, self.port,
                                        limit=MESSAGE_LIMIT)
        self.port = server.sockets[0].getsockname()[1]
        logger.info("HL7 listener on %s:%s", self.host, self.port)
        on_ready(self)
        async with server:
            while not self._stopped.is_set():
                await asyncio.to_thread(self._beat)
                try:
                    await asyncio.wait_for(self._stopped.wait(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    pass
        await asyncio.to_thread(cache.delete, HEARTBEAT_KEY)

    def _beat(self) -> None:
        close_old_connections()
        try:
            cache.set(HEARTBEAT_KEY, {"host": self.host, "port": self.port,
                                      "at": timezone.now().isoformat()},
                      timeout=HEARTBEAT_SECONDS * 60)
        except DatabaseError:
            logger.warning("HL7 listener heartbeat not recorded: the database did not answer")

    def stop(self) -> None:
        """Stop serving (from a signal handler or another thread)."""
        if self._loop is not None and self._stopped is not None:
            self._loop.call_soon_threadsafe(self._stopped.set)


def listener_running() -> bool:
    """Whether a listener's heartbeat is recent (the setup checklist shows it)."""
    beat = cache.get(HEARTBEAT_KEY)
    if not beat:
        return False
    seen = datetime.fromisoformat(beat["at"])
    return (timezone.now() - seen).total_seconds() < 6 * HEARTBEAT_SECONDS
