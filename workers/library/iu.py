"""The Indiana University chest X-ray reports (Open-i), read from torchxrayvision's archive.

The PyPI package ``torchxrayvision`` (1.5.7) carries the 3,955 XML reports as
``torchxrayvision/data/NLMCXR_reports.tgz``. ``read_iu_archive`` takes that .tgz, or the wheel
itself (a zip file: the archive is read from inside it, nothing is installed), and yields one
``LibraryReport`` per report that has a FINDINGS or an IMPRESSION, with the benchmark's text
normalisation (../shared/bench/README.md) and the external id ``iu-<n>`` from ``<n>.xml``.
Licence of the reports: CC BY-NC-ND 4.0.
"""
from __future__ import annotations

import io
import re
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO
from xml.etree import ElementTree

from workers.errors import WorkerError
from workers.library.records import LibraryReport, compose_report, normalise_text

IU_ARCHIVE_MEMBER = "torchxrayvision/data/NLMCXR_reports.tgz"
_NUMBER_RE = re.compile(r"(?:^|/)(\d+)\.xml$")


class ArchiveError(WorkerError, ValueError):
    """The file is not an IU report archive (or a wheel that carries one)."""


def parse_report_xml(data: bytes | str) -> dict[str, str]:
    """The normalised text of each ``AbstractText`` section of one report, by its upper-case
    label (COMPARISON, INDICATION, FINDINGS, IMPRESSION); empty sections are ""."""
    root = ElementTree.fromstring(data)
    sections: dict[str, str] = {}
    for node in root.iter("AbstractText"):
        label = (node.get("Label") or "").strip().upper()
        if label:
            sections[label] = normalise_text("".join(node.itertext()))
    return sections


def _open_tgz(path: Path) -> IO[bytes]:
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as wheel:
            try:
                return io.BytesIO(wheel.read(IU_ARCHIVE_MEMBER))
            except KeyError:
                raise ArchiveError(f"{path} does not contain {IU_ARCHIVE_MEMBER}") from None
    return path.open("rb")


def read_iu_archive(path: str | Path) -> Iterator[LibraryReport]:
    """Every report of the archive (or wheel) at ``path`` with a FINDINGS or IMPRESSION, in
    the numeric order of the XML files."""
    path = Path(path)
    if not path.is_file():
        raise ArchiveError(f"{path} does not exist")
    with _open_tgz(path) as raw:
        try:
            archive = tarfile.open(fileobj=raw, mode="r:*")
        except tarfile.TarError as exc:
            raise ArchiveError(f"{path} is not a .tgz archive nor a wheel: {exc}") from None
        with archive:
            members = []
            for member in archive.getmembers():
                match = _NUMBER_RE.search(member.name)
                if member.isfile() and match:
                    members.append((int(match.group(1)), member))
            if not members:
                raise ArchiveError(f"{path} holds no <n>.xml reports")
            for number, member in sorted(members, key=lambda item: item[0]):
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                try:
                    sections = parse_report_xml(handle.read())
                except ElementTree.ParseError as exc:
                    raise ArchiveError(f"{path}: {member.name} is not valid XML: {exc}") from None
                findings = sections.get("FINDINGS", "")
                impression = sections.get("IMPRESSION", "")
                if not (findings or impression):
                    continue
                yield LibraryReport(f"iu-{number}", compose_report(findings, impression),
                                    findings, impression)
