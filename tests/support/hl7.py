"""HL7 v2 ORU^R01 messages as a dictation system sends them, and RadReview's HL7 listener as a
process of its own for the tests that send them over MLLP."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from . import media
from .dicom_services import Process, port_open
from .sockets import free_port
from .worker import ROOT, test_database_url

FINDINGS = ("FINDINGS: The heart size is normal. There is a small left pleural effusion. "
            "No pneumothorax.")
IMPRESSION = "IMPRESSION: Small left pleural effusion."


def oru(*, accession: str = "ACC-100", patient_id: str = "P-100", status: str = "F",
        control_id: str = "MSG-1", lines: tuple[str, ...] = (FINDINGS, IMPRESSION),
        sender: str = "POWERSCRIBE", value_type: str = "TX") -> str:
    """An ORU^R01 result: the report's lines as repetitions of one OBX (TX), or joined with FT
    line breaks (FT)."""
    obr = ["OBR", "1", "PLACER-1", accession, "71046^XR CHEST 2 VIEWS^CPT"] + [""] * 21
    obr[25] = status
    text = "~".join(lines) if value_type == "TX" else "\\.br\\".join(lines)
    return "\r".join([
        f"MSH|^~\\&|{sender}|HOSPITAL|RADREVIEW|HOSPITAL|20261127101500||ORU^R01|{control_id}|P|"
        "2.5",
        f"PID|1||{patient_id}^^^HOSPITAL^MR||Doe^Jane",
        "|".join(obr),
        f"OBX|1|{value_type}|18782-3^Radiology Study observation^LN||{text}||||||{status}",
    ]) + "\r"


def fields(message: str, segment: str) -> list[str]:
    """The fields of the first ``segment`` of an HL7 message (index 0: the segment's name)."""
    for line in message.replace("\n", "\r").split("\r"):
        if line.startswith(segment + "|"):
            return line.split("|")
    raise AssertionError(f"no {segment} segment in {message!r}")


class Hl7Listener(Process):
    """RadReview's HL7 listener (manage.py run_hl7_listener) on the test database."""

    def __init__(self, folder: Path, **environment: str):
        super().__init__("hl7-listener", folder)
        self.port = free_port()
        self.environment = environment

    def start(self) -> Hl7Listener:
        env = dict(os.environ, DATABASE_URL=test_database_url(), PYTHONUNBUFFERED="1",
                   **media.environment(),
                   RADREVIEW_HL7_PORT=str(self.port), **self.environment)
        self.spawn([sys.executable, "manage.py", "run_hl7_listener"], cwd=ROOT, env=env)
        self.wait_until(lambda: port_open(self.port), "the HL7 listener to listen")
        return self
