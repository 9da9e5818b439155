"""Uploads crafted to hurt, through the API: refused with a reason before anything is decoded or
stored, or stored under names of our own. (A 5 MB report and a report of only control
characters: tests/web/test_report_text.py; the readers' own refusals: tests/workers/imaging/.)"""
import json
import zlib
from pathlib import PurePosixPath

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from radreview.media.models import UploadIntent
from radreview.studies.models import Image, Study
from tests.support import dicom_factory as dicom
from tests.support import media
from tests.workers.imaging.test_raster import png_chunk
from workers.imaging import dicom as dicom_module

pytestmark = pytest.mark.django_db

# An undefined-length (FFFA,FFFA) sequence holding one undefined-length item, and their ends:
# nested N deep after the pixel data, it makes a parser recurse N levels.
NESTED_OPEN = b"\xfa\xff\xfa\xffSQ\x00\x00\xff\xff\xff\xff" + b"\xfe\xff\x00\xe0\xff\xff\xff\xff"
NESTED_CLOSE = b"\xfe\xff\x0d\xe0\x00\x00\x00\x00" + b"\xfe\xff\xdd\xe0\x00\x00\x00\x00"


def upload(api_client, name: str, data: bytes):
    return api_client.post("/api/studies/", {"files": [SimpleUploadedFile(name, data)]},
                           format="multipart")


def refused(response, words: str) -> None:
    assert response.status_code == 400, response.content[:300]
    assert words in response.json()["detail"]
    assert not Study.objects.exists()
    assert media.stored() == []
    assert not UploadIntent.objects.exists()  # refused before the intent to write anything


@pytest.fixture
def no_decoding(monkeypatch):
    """Fail the test if a refused file's pixels are decoded at all."""
    def decode(*args, **kwargs):
        raise AssertionError("pixels were decoded")
    monkeypatch.setattr(dicom_module, "_decode", decode)


def test_a_decompression_bomb_png_is_refused_from_its_header(api_client):
    ihdr = (50_000).to_bytes(4, "big") * 2 + bytes([8, 0, 0, 0, 0])
    bomb = (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
            + png_chunk(b"IDAT", zlib.compress(b"\0" * 2_000_000, 9)) + png_chunk(b"IEND", b""))
    assert len(bomb) < 10_000  # a few KB that promise 2.5 gigapixels
    refused(upload(api_client, "bomb.png", bomb), "megapixel limit")


@pytest.mark.parametrize("rows, columns, frames, words", [
    (65535, 65535, 1, "65535 × 65535 pixels"),
    (4096, 4096, 1000, "Multi-frame DICOM images (1000 frames)"),
])
def test_a_dicom_promising_gigabytes_is_refused_before_decoding(api_client, no_decoding, rows,
                                                                columns, frames, words):
    ds = dicom.make_dicom_dataset(rows=16, cols=16)
    ds.Rows, ds.Columns = rows, columns
    if frames > 1:
        ds.NumberOfFrames = frames
    refused(upload(api_client, "huge.dcm", dicom.dataset_bytes(ds)), words)


def test_deeply_nested_sequences_are_refused_as_damaged(api_client):
    data = dicom.make_dicom(rows=64, cols=64) + NESTED_OPEN * 5000 + NESTED_CLOSE * 5000
    refused(upload(api_client, "nested.dcm", data), "damaged")


def test_a_huge_private_tag_is_kept_out_of_the_stored_metadata(api_client):
    ds = dicom.make_dicom_dataset(rows=64, cols=64)
    block = ds.private_block(0x0009, "HOSTILE VENDOR", create=True)
    block.add_new(0x10, "OB", b"\xab" * (8 * 1024 * 1024))
    response = upload(api_client, "private.dcm", dicom.dataset_bytes(ds))
    assert response.status_code == 201, response.content[:300]
    assert len(json.dumps(Image.objects.get().metadata)) < 20_000


def test_a_private_tag_declaring_gigabytes_in_a_small_file_is_refused(api_client):
    head = dicom.make_dicom(rows=64, cols=64)
    lying = head + b"\x09\x00\x10\x10OB\x00\x00\xf0\xff\xff\xff" + b"\0" * 100
    refused(upload(api_client, "lying.dcm", lying), "truncated")


@pytest.mark.parametrize("name", [
    "../../../etc/passwd.png", "..\\..\\windows\\system32\\x.png", "/abs/path/x.png",
    "\x1b[31mred\x07.png", "new\nline.png", "CON.png", "x" * 300 + ".png", "\u202egnp.exe",
])
def test_stored_names_never_come_from_the_client(api_client, name):
    response = upload(api_client, name, dicom.make_png())
    assert response.status_code == 201, response.content[:300]
    image = Image.objects.get()
    stored = PurePosixPath(image.original.name)
    intent = UploadIntent.objects.get()  # the upload's own folder, named by its random token
    assert intent.state == UploadIntent.State.DONE and intent.files == [image.original.name]
    assert media.exists(image.original.name)
    assert stored.parent == PurePosixPath(intent.folder) / "0"
    assert stored.name == f"000-{image.sha256[:16]}.png"
    assert "/" not in image.original_name and "\\" not in image.original_name
    assert image.original_name.isprintable() and len(image.original_name) <= 255
