"""detect_kind decides from content: DICOM (with or without preamble), PNG, JPEG, text."""
import pytest

from tests.support import dicom_factory as factory
from workers.imaging import SNIFF_BYTES, describe_unknown, detect_kind


def head(data: bytes) -> bytes:
    return data[:SNIFF_BYTES]


def test_dicom_is_recognised_by_the_dicm_marker_whatever_its_name():
    data = factory.make_dicom()
    assert data[128:132] == b"DICM"
    assert detect_kind(head(data), "photo.png") == "dicom"


@pytest.mark.parametrize("implicit_vr", [False, True])
def test_bare_dicom_without_preamble_is_recognised(implicit_vr):
    data = factory.make_dicom(preamble=False, implicit_vr=implicit_vr)
    assert data[128:132] != b"DICM"
    assert detect_kind(head(data), "IM0001") == "dicom"


def test_png_and_jpeg_are_recognised_by_their_signatures_not_their_names():
    assert detect_kind(head(factory.make_png()), "image.dcm") == "png"
    assert detect_kind(head(factory.make_jpeg()), "image.png") == "jpeg"


def test_utf8_report_is_text():
    report = "FINDINGS: No pneumothorax. Heart size normal. Größe 3 cm.\n".encode()
    assert detect_kind(report, "report") == "text"


def test_utf8_cut_inside_a_multibyte_character_is_still_text():
    report = ("x" * (SNIFF_BYTES - 1) + "é").encode()[:SNIFF_BYTES]
    assert detect_kind(report, "") == "text"


def test_windows_1252_text_counts_only_when_named_txt():
    report = "Befund: Herzgröße normal.".encode("cp1252")
    assert detect_kind(report, "report.txt") == "text"
    assert detect_kind(report, "report.bin") is None


@pytest.mark.parametrize(
    "data, name",
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document"),
        (b"PK\x03\x04\x14\x00\x00\x00", "a ZIP archive"),
        (b"II*\x00\x08\x00\x00\x00", "a TIFF image"),
        (b"GIF89a\x01\x00\x01\x00", "a GIF image"),
        (b"BM\x3a\x00\x00\x00\x00\x00\x00\x00", "a BMP image"),
    ],
)
def test_other_formats_are_not_accepted_but_named(data, name):
    assert detect_kind(data, "scan.dcm") is None
    assert describe_unknown(data).startswith(name)


def test_text_starting_with_bm_is_not_mistaken_for_bmp():
    assert detect_kind(b"BMI 24. Heart normal.", "r.txt") == "text"


def test_binary_noise_and_empty_input_are_nothing():
    assert detect_kind(bytes(range(256)) * 16, "x.dcm") is None
    assert detect_kind(b"", "x.dcm") is None


def test_binary_that_only_starts_like_a_dicom_tag_is_not_dicom():
    # Group 0008 element 0008 but no plausible VR or length after it.
    assert detect_kind(b"\x08\x00\x08\x00" + bytes(range(200, 256)) * 8, "") is None
