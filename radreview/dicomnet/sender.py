"""Sending to a DICOM node (C-STORE and C-ECHO as an SCU), with plain errors.

No Django here beyond the settings' AE title: the callers pass a destination and a dataset.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

from pydicom import dcmread
from pydicom.dataset import Dataset
from pynetdicom import AE
from pynetdicom.sop_class import Verification

from radreview.errors import ServiceError

TIMEOUT_SECONDS = 30


class SendFailed(ServiceError):
    """The destination could not be reached or did not accept the dataset; ``str`` says why."""


@dataclass(frozen=True)
class Destination:
    ae_title: str
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.ae_title}@{self.host}:{self.port}"


def _associate(ae: AE, destination: Destination):
    assoc = ae.associate(destination.host, destination.port, ae_title=destination.ae_title)
    if not assoc.is_established:
        if assoc.is_rejected:
            raise SendFailed(f"{destination} rejected the association (check the AE titles)")
        raise SendFailed(f"{destination} could not be reached")
    return assoc


def _ae(calling_ae: str) -> AE:
    ae = AE(ae_title=calling_ae)
    for timeout in ("acse_timeout", "dimse_timeout", "network_timeout", "connection_timeout"):
        setattr(ae, timeout, TIMEOUT_SECONDS)
    return ae


def store(data: bytes, destination: Destination, calling_ae: str) -> None:
    """C-STORE one DICOM Part 10 file; raises SendFailed unless the destination accepted it."""
    dataset: Dataset = dcmread(io.BytesIO(data))
    ae = _ae(calling_ae)
    ae.add_requested_context(dataset.SOPClassUID, dataset.file_meta.TransferSyntaxUID)
    assoc = _associate(ae, destination)
    try:
        answer = assoc.send_c_store(dataset)
    finally:
        assoc.release()
    if answer is None or "Status" not in answer:
        raise SendFailed(f"{destination} did not answer the C-STORE")
    if answer.Status not in (0x0000, 0xB000, 0xB006, 0xB007):  # success, or stored with a warning
        comment = f": {answer.ErrorComment}" if "ErrorComment" in answer else ""
        raise SendFailed(f"{destination} refused the SR (status 0x{answer.Status:04X}{comment})")


def echo(destination: Destination, calling_ae: str) -> None:
    """C-ECHO; raises SendFailed unless the destination answered with success."""
    ae = _ae(calling_ae)
    ae.add_requested_context(Verification)
    assoc = _associate(ae, destination)
    try:
        answer = assoc.send_c_echo()
    finally:
        assoc.release()
    if answer is None or answer.get("Status") != 0x0000:
        raise SendFailed(f"{destination} did not answer the C-ECHO")
