"""HL7 v2 ORU^R01 results as dictation systems and RISs send radiology reports, read with
python-hl7, and the acknowledgements RadReview answers (docs/hl7.md).

What is read: MSH-9 (ORU^R01), MSH-10 (the message's control id: a message sent again is
answered without being stored twice), MSH-3/MSH-4 (the sender), PID-3 (the patient ID), the
accession number from OBR-3 (filler order number; else OBR-18), the result status
from OBR-25 (P preliminary, F final, C corrected) and the report text from the OBX segments of
text types (TX, FT, ST), in order, each repetition and FT line break on a line of its own.
"""
from __future__ import annotations

import re
from datetime import UTC, datetime

import hl7
from hl7.exceptions import ParseException

from radreview.errors import ServiceError

from .services import ReportDelivery

RESULT_STATUSES = {"P": "preliminary", "F": "final", "C": "corrected"}
TEXT_TYPES = ("TX", "FT", "ST")
# FT formatting commands that start a new line (\.br\ a line break, \.sp\ a blank line).
FT_LINE_BREAK = re.compile(r"\\\.(?:br|sp\d*)\\")
RECEIVING_APPLICATION = "RADREVIEW"
ERROR_CODES = {"AR": "200^Unsupported message type^HL70357",
               "AE": "207^Application internal error^HL70357"}


class MessageRefused(ServiceError):
    """A message RadReview does not accept: AR (rejected: wrong kind of message, or one it
    cannot read) or AE (an error in what it says), with the reason for the sender's log."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def _field(message: hl7.Message, path: str) -> str:
    try:
        return str(message[path]).strip()
    except (KeyError, IndexError):
        return ""


def _text(message: hl7.Message) -> str:
    lines = []
    for obx in message.segments("OBX") if _has(message, "OBX") else []:
        if str(obx[2]).strip() not in TEXT_TYPES or len(obx) <= 5:
            continue
        value = obx[5]
        repeated = len(value) > 0 and isinstance(value[0], hl7.Repetition)
        for repetition in (value if repeated else [value]):
            raw = FT_LINE_BREAK.sub("\n", str(repetition))
            lines.extend(message.unescape(part) for part in raw.split("\n"))
    return "\n".join(lines).strip()


def _has(message: hl7.Message, segment: str) -> bool:
    try:
        message.segment(segment)
    except KeyError:
        return False
    return True


def parse(raw: str) -> hl7.Message:
    """The message; ``MessageRefused`` (AR) when it is not HL7 v2."""
    try:
        return hl7.parse(raw)
    except (ParseException, ValueError, IndexError) as exc:
        raise MessageRefused("AR", f"Not an HL7 v2 message: {exc}") from None


def read_oru(message: hl7.Message) -> ReportDelivery:
    """The report an ORU^R01 carries; ``MessageRefused`` with the code and the reason."""
    kind = f"{_field(message, 'MSH.F9.R1.C1')}^{_field(message, 'MSH.F9.R1.C2')}"
    if kind != "ORU^R01":
        raise MessageRefused("AR", f"RadReview takes ORU^R01 results; this is {kind}.")
    if not _has(message, "OBR"):
        raise MessageRefused("AE", "The message has no OBR segment: no accession number.")
    # Not the placer order number (OBR-2): an order's number is not the study's, and a report
    # matched to the wrong study is the one mistake this must never make.
    accession = _field(message, "OBR.F3.R1.C1") or _field(message, "OBR.F18.R1.C1")
    if not accession:
        raise MessageRefused("AE", "No accession number in OBR-3 (filler order number) or "
                                   "OBR-18.")
    status_code = _field(message, "OBR.F25")
    if status_code not in RESULT_STATUSES:
        raise MessageRefused("AE", f"Result status (OBR-25) {status_code or 'missing'}: "
                                   "RadReview takes P, F or C.")
    text = _text(message)
    if not text:
        raise MessageRefused("AE", "No report text in OBX segments of type TX, FT or ST.")
    sender = "^".join(part for part in (_field(message, "MSH.F3"), _field(message, "MSH.F4"))
                      if part)
    return ReportDelivery(
        channel="hl7", text=text, accession_number=accession,
        patient_id=_field(message, "PID.F3.R1.C1") if _has(message, "PID") else "",
        result_status=RESULT_STATUSES[status_code], sender=sender,
        message_id=_field(message, "MSH.F10"))


def sending_application(message: hl7.Message) -> str:
    """MSH-3: who may deliver reports is checked before anything else."""
    return _field(message, "MSH.F3")


def ack(message: hl7.Message | None, code: str, text: str = "") -> str:
    """The acknowledgement of ``message`` (AA, AE or AR), with ``text`` in MSA-3; for a message
    too broken to answer in kind, a minimal ACK of our own."""
    if message is not None and _has(message, "MSH"):
        answer = str(message.create_ack(code, application=RECEIVING_APPLICATION))
    else:
        now = datetime.now(UTC).strftime("%Y%m%d%H%M%S")
        answer = f"MSH|^~\\&|{RECEIVING_APPLICATION}||||{now}||ACK|{now}|P|2.5\rMSA|{code}|\r"
    if not text:
        return answer
    # MSA-3 holds 80 characters; ERR-8 the whole reason, with an HL7 table 0357 code.
    msh, msa = answer.rstrip("\r").split("\r")[:2]
    lines = [msh, f"{msa}|{_clean(text)[:80]}"]
    if code != "AA":
        error = ERROR_CODES["AR" if code == "AR" else "AE"]
        lines.append(f"ERR|||{error}|E||||{_clean(text)}")
    return "\r".join(lines) + "\r"


def _clean(text: str) -> str:
    """Text for an HL7 field: no delimiters, one line."""
    return re.sub(r"[|^~\\&\r\n]+", " ", text).strip()
