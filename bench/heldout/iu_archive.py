"""Read the Indiana University chest X-ray reports (NLMCXR_reports.tgz) as the bench README does.

Used by the held-out benchmark builders: FINDINGS and IMPRESSION text normalised like
../shared/bench (<BR> → space, a space after a period that runs into a capital, whitespace
collapsed), and the MeSH <major> terms of each report.
"""
from __future__ import annotations

import re
import tarfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class IUReport:
    id: str
    findings: str
    impression: str
    mesh_major: tuple[str, ...]

    @property
    def report(self) -> str:
        parts = []
        if self.findings:
            parts.append(f"FINDINGS: {self.findings}")
        if self.impression:
            parts.append(f"IMPRESSION: {self.impression}")
        return "\n".join(parts)


def normalise(text: str | None) -> str:
    text = re.sub(r"<BR>", " ", text or "", flags=re.I)
    text = re.sub(r"\.(?=[A-Z])", ". ", text)
    return re.sub(r"\s+", " ", text).strip()


def read_archive(path: Path) -> list[IUReport]:
    reports = []
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            if not member.name.endswith(".xml"):
                continue
            root = ET.parse(archive.extractfile(member)).getroot()
            sections = {node.get("Label"): node.text for node in root.iter("AbstractText")}
            number = Path(member.name).stem
            reports.append(IUReport(
                id=f"iu-{number}",
                findings=normalise(sections.get("FINDINGS")),
                impression=normalise(sections.get("IMPRESSION")),
                mesh_major=tuple((m.text or "").strip() for m in root.iter("major")),
            ))
    return sorted(reports, key=lambda r: int(r.id[3:]))
