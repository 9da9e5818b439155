"""Reference-library folders and reports files, as a site would hand them to the import."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.support import dicom_factory as dicom
from tests.workers.imagememory.library_factory import REPORTS, phantom


def folder_per_study(root: Path, n: int = 4, *, lateral: bool = True) -> tuple[Path, Path]:
    """DIR/<study>/{pa,lateral}.dcm and a reports.csv keyed by study."""
    images = root / "images"
    for index in range(n):
        folder = images / f"s{index + 1}"
        folder.mkdir(parents=True)
        (folder / "pa.dcm").write_bytes(dicom.make_dicom(density=phantom(200 + index), view="PA",
                                                         rows=192, cols=192))
        if lateral:
            (folder / "lateral.dcm").write_bytes(dicom.make_dicom(
                density=phantom(200 + index, True), view="LATERAL", rows=192, cols=192))
    reports = root / "reports.csv"
    with reports.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["study", "report"])
        for index in range(n):
            writer.writerow([f"s{index + 1}", REPORTS[index]])
    return images, reports


def flat_with_jsonl(root: Path) -> tuple[Path, Path]:
    """Flat PNG files named after the study, and an images list in a JSONL file."""
    images = root / "flat"
    images.mkdir(parents=True)
    (images / "a_pa.png").write_bytes(dicom.make_png(phantom(300)))
    (images / "a_lat.png").write_bytes(dicom.make_png(phantom(300, True)))
    (images / "scan-b.png").write_bytes(dicom.make_png(phantom(301)))
    (images / "stray.png").write_bytes(dicom.make_png(phantom(302)))
    reports = root / "reports.jsonl"
    reports.write_text("\n".join(json.dumps(line) for line in [
        {"study": "a", "findings": "Small left pleural effusion.", "impression": "Effusion."},
        {"id": "b", "report": "Heart size is normal. Lungs are clear.",
         "images": [{"path": "scan-b.png", "view": "PA"}]},
    ]) + "\n")
    return images, reports
