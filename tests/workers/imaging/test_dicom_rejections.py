"""Every refused DICOM file raises the right ImagingError with a message a radiologist can act
on, and neither the messages nor the logs carry patient identifiers."""
import logging
import warnings

import numpy as np
import pydicom
import pytest
from pydicom.encaps import encapsulate
from pydicom.uid import JPEG2000MCLossless, RLELossless

from tests.support import dicom_factory as factory
from workers.imaging import (
    ImagingError,
    MalformedDicom,
    MalformedImage,
    NoPixelData,
    NotAnImage,
    UnsupportedImage,
    UnsupportedTransferSyntax,
    read_dicom,
    read_image,
)
from workers.imaging import dicom as dicom_module

PHI = ("Test^Patient", "Test", "PID-0001", "ACC-0001", "19600101")


def refuse(data: bytes, error: type[ImagingError]) -> ImagingError:
    with pytest.raises(error) as caught:
        read_dicom(data)
    exc = caught.value
    assert type(exc) is error
    assert exc.message and exc.message == str(exc)
    for secret in PHI:
        assert secret not in exc.message and secret not in exc.detail
    # Nothing chained into tracebacks: a library exception may quote a tag value.
    assert exc.__cause__ is None and (exc.__context__ is None or exc.__suppress_context__)
    return exc


@pytest.mark.parametrize(
    "kind, words",
    [
        ("truncated", "truncated"),
        ("truncated_header", "truncated"),
        ("bad_header", "damaged"),
        ("bad_pixels", "shorter than the image size declares: 266 rows × 256 columns"),
        ("corrupt_frame", "could not be decoded"),
        ("missing_rows", "missing its Rows (0028,0010) tag"),
        ("bad_bits", "20 bits stored in 16 bits allocated"),
    ],
)
def test_malformed_files_are_refused_with_what_is_wrong(kind, words):
    exc = refuse(factory.make_malformed_dicom(kind), MalformedDicom)
    assert words in exc.message
    assert isinstance(exc, MalformedImage)


def test_corrupt_frame_detail_carries_each_decoders_complaint():
    exc = refuse(factory.make_malformed_dicom("corrupt_frame"), MalformedDicom)
    assert "JPEG 2000" in exc.message
    assert "pylibjpeg:" in exc.detail


def test_pixel_data_longer_than_declared_is_refused():
    ds = factory.make_dicom_dataset(rows=64, cols=64)
    ds.Rows = 60
    exc = refuse(factory.dataset_bytes(ds), MalformedDicom)
    assert "longer than the image size declares" in exc.message


def test_rle_frame_cut_short_is_refused():
    ds = factory.make_dicom_dataset(compress="rle")
    frame = next(pydicom.encaps.generate_frames(ds.PixelData, number_of_frames=1))
    ds.PixelData = encapsulate([frame[: len(frame) // 3]])
    exc = refuse(factory.dataset_bytes(ds), MalformedDicom)
    assert "RLE Lossless" in exc.message


def test_mpeg4_video_is_refused_naming_the_syntax():
    exc = refuse(factory.make_unsupported_transfer_syntax_dicom(), UnsupportedTransferSyntax)
    assert exc.message.startswith("MPEG-4 AVC/H.264 video is not supported")
    assert exc.transfer_syntax_uid == "1.2.840.10008.1.2.4.102"


def test_mpeg2_and_hevc_video_are_refused_too():
    for uid, label in (
        ("1.2.840.10008.1.2.4.100", "MPEG-2"),
        ("1.2.840.10008.1.2.4.107", "HEVC/H.265"),
    ):
        exc = refuse(factory.make_unsupported_transfer_syntax_dicom(uid), UnsupportedTransferSyntax)
        assert exc.message.startswith(f"{label} video is not supported")


def test_a_syntax_without_a_decoder_is_refused_by_name():
    ds = factory.make_dicom_dataset(compress="jpeg2000")
    ds.file_meta.TransferSyntaxUID = JPEG2000MCLossless
    exc = refuse(factory.dataset_bytes(ds), UnsupportedTransferSyntax)
    assert "JPEG 2000 Part 2 Multi-component" in exc.message and "cannot decode" in exc.message


def test_a_syntax_whose_decoder_is_not_installed_is_refused(monkeypatch):
    class Missing:
        is_available = False

    monkeypatch.setattr(dicom_module, "get_decoder", lambda uid: Missing())
    exc = refuse(factory.make_dicom(compress="rle"), UnsupportedTransferSyntax)
    assert "RLE Lossless" in exc.message
    assert exc.transfer_syntax_uid == RLELossless


def test_jpip_referenced_pixel_data_is_refused():
    ds = factory.make_dicom_dataset()
    del ds.PixelData
    ds.file_meta.TransferSyntaxUID = "1.2.840.10008.1.2.4.94"  # JPIP Referenced
    ds.PixelDataProviderURL = "http://pacs.example/jpip"
    exc = refuse(factory.dataset_bytes(ds), UnsupportedTransferSyntax)
    assert "remote server" in exc.message


def test_unknown_transfer_syntax_is_refused():
    ds = factory.make_dicom_dataset()
    ds.file_meta.TransferSyntaxUID = "1.2.3.4.5.6.7"
    exc = refuse(factory.dataset_bytes(ds), UnsupportedTransferSyntax)
    assert "unknown transfer syntax (1.2.3.4.5.6.7)" in exc.message


def test_structured_report_has_no_image():
    exc = refuse(factory.make_sr_dicom(), NoPixelData)
    assert "holds no image" in exc.message and "Basic Text SR Storage" in exc.message


def test_an_image_object_without_pixel_data_is_malformed_not_a_report():
    ds = factory.make_dicom_dataset()
    del ds.PixelData
    exc = refuse(factory.dataset_bytes(ds), MalformedDicom)
    assert "declares an image" in exc.message and "no pixel data" in exc.message


def test_colour_dicom_is_refused():
    gray = factory.stored_values(factory.chest_phantom(0, 64, 64), bits=8)
    rgb = np.repeat(gray[..., None], 3, axis=2)
    ds = factory.make_dicom_dataset(pixels=rgb[..., 0], bits=8, sop_class="sc", modality="OT")
    ds.SamplesPerPixel = 3
    ds.PhotometricInterpretation = "RGB"
    ds.PlanarConfiguration = 0
    ds.PixelData = rgb.tobytes()
    exc = refuse(factory.dataset_bytes(ds), UnsupportedImage)
    assert "Colour DICOM images (RGB) are not supported" in exc.message


def test_multi_frame_dicom_is_refused():
    frames = np.stack([factory.stored_values(factory.chest_phantom(s, 64, 64)) for s in range(3)])
    ds = factory.make_dicom_dataset(pixels=frames[0])
    ds.NumberOfFrames = 3
    ds.PixelData = frames.tobytes()
    exc = refuse(factory.dataset_bytes(ds), UnsupportedImage)
    assert "Multi-frame DICOM images (3 frames)" in exc.message


def test_an_image_declaring_more_pixels_than_the_limit_is_refused_before_decoding():
    ds = factory.make_dicom_dataset(rows=16, cols=16)
    ds.Rows = ds.Columns = 30000
    exc = refuse(factory.dataset_bytes(ds), UnsupportedImage)
    assert "30000 × 30000 pixels" in exc.message and "megapixel limit" in exc.message


def test_float_pixel_data_is_refused():
    ds = factory.make_dicom_dataset(rows=8, cols=8)
    del ds.PixelData
    ds.FloatPixelData = np.zeros(64, dtype=np.float32).tobytes()
    exc = refuse(factory.dataset_bytes(ds), UnsupportedImage)
    assert "floating-point" in exc.message


def test_files_that_are_not_dicom_at_all():
    assert "PNG image" in refuse(factory.make_png(), NotAnImage).message
    assert "PDF document" in refuse(b"%PDF-1.4\n" + bytes(200), NotAnImage).message
    assert "no DICOM header" in refuse(bytes(range(256)) * 4, NotAnImage).message


def test_read_image_refuses_empty_text_and_unknown_files():
    for data, words in (
        (b"", "empty"),
        (b"FINDINGS: clear lungs.", "text file"),
        (b"PK\x03\x04" + bytes(100), "ZIP archive"),
    ):
        with pytest.raises(NotAnImage) as caught:
            read_image(data, "upload.bin")
        assert words in caught.value.message


def test_reading_logs_no_patient_identifier_even_for_invalid_values(caplog):
    # A PN over 64 characters per component and a bad date make pydicom complain with the value.
    with warnings.catch_warnings(record=True) as complaints:
        warnings.simplefilter("always")
        ds = factory.make_dicom_dataset(
            patient_name="Verylongsurname" * 6 + "^Test", birth_date="1960-01-01"
        )
    assert any("1960-01-01" in str(w.message) for w in complaints)  # pydicom quotes values
    data = factory.dataset_bytes(ds)
    broken = [factory.make_malformed_dicom(kind) for kind in factory.MALFORMED_KINDS]
    caplog.set_level(logging.DEBUG)
    caplog.clear()  # building the files above made pydicom complain; reading must not
    with _no_warnings():
        image = read_dicom(data)
        for item in broken:
            with pytest.raises(ImagingError):
                read_dicom(item)
    assert image.metadata.patient_name.startswith("Verylongsurname")
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for secret in ("Verylongsurname", "PID-0001", "ACC-0001", "1960-01-01"):
        assert secret not in logged


class _no_warnings:
    """Fail if a warning (which pydicom would write with the tag value) escapes."""

    def __enter__(self):
        self._catcher = warnings.catch_warnings(record=True)
        self.records = self._catcher.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc_info):
        self._catcher.__exit__(*exc_info)
        assert not [str(w.message) for w in self.records]
        return False


def test_pydicom_settings_are_restored_after_reading():
    before = pydicom.config.settings.reading_validation_mode
    with pytest.raises(ImagingError):
        read_dicom(factory.make_malformed_dicom("bad_header"))
    read_dicom(factory.make_dicom())
    assert pydicom.config.settings.reading_validation_mode == before
    assert not logging.getLogger("pydicom").filters
    assert not logging.getLogger("pydicom.pixels.decoders.base").filters
