"""read_dicom parses, validates and decodes valid files: every source type, bare data sets,
compressed transfer syntaxes through pylibjpeg's plugins, and the metadata reviewers need."""
import io
import json

import numpy as np
import pydicom
import pytest
from pydicom.uid import ComputedRadiographyImageStorage

from tests.support import dicom_factory as factory
from workers.imaging import DicomImage, DicomMetadata, read_dicom, read_image

DENSITY = factory.chest_phantom(seed=4, rows=200, cols=160)


def stored(**options) -> np.ndarray:
    return factory.stored_values(DENSITY, **options)


def test_reads_an_uncompressed_radiograph_into_display_pixels():
    image = read_dicom(factory.make_dicom(density=DENSITY))
    assert isinstance(image, DicomImage)
    assert image.pixels.shape == (200, 160) and image.pixels.dtype == np.float32
    assert image.pixels.min() == 0.0 and image.pixels.max() == 1.0
    assert image.decoder == "native"
    np.testing.assert_array_equal(image.modality_values, stored().astype(np.float32))


@pytest.mark.parametrize(
    "compress, plugin",
    [("jpeg2000", "pylibjpeg"), ("jpegls", "pylibjpeg"), ("rle", "pydicom")],
)
def test_lossless_compressed_files_decode_to_the_same_values(compress, plugin):
    image = read_dicom(factory.make_dicom(density=DENSITY, compress=compress))
    assert image.decoder == plugin
    assert image.metadata.transfer_syntax_uid == factory.COMPRESSIONS[compress][0]
    np.testing.assert_array_equal(image.modality_values, stored().astype(np.float32))


def test_jpeg_baseline_is_decoded_by_pylibjpeg_libjpeg():
    image = read_dicom(factory.make_dicom(density=DENSITY, bits=8, compress="jpeg_baseline"))
    assert image.decoder == "pylibjpeg"
    assert image.metadata.transfer_syntax_name == "JPEG Baseline (Process 1)"
    # Lossy, but close to the original.
    assert np.abs(image.modality_values - stored(bits=8)).mean() < 2.0


def test_jpeg2000_is_decoded_through_the_pylibjpeg_openjpeg_plugin():
    from pydicom.pixels.decoders.pylibjpeg import is_available
    from pydicom.uid import JPEG2000Lossless

    assert is_available(JPEG2000Lossless)  # pylibjpeg-openjpeg is installed and used
    assert read_dicom(factory.make_dicom(compress="jpeg2000")).decoder == "pylibjpeg"


@pytest.mark.parametrize("implicit_vr", [False, True])
def test_bare_dataset_without_preamble_or_file_meta_is_read(implicit_vr):
    image = read_dicom(factory.make_dicom(density=DENSITY, preamble=False, implicit_vr=implicit_vr))
    expected = "Implicit VR Little Endian" if implicit_vr else "Explicit VR Little Endian"
    assert image.metadata.transfer_syntax_name == expected
    np.testing.assert_array_equal(image.modality_values, stored().astype(np.float32))


def test_source_may_be_bytes_a_path_or_a_stream_read_from_its_start(tmp_path):
    data = factory.make_dicom(density=DENSITY)
    path = tmp_path / "image.dcm"
    path.write_bytes(data)
    stream = io.BytesIO(data)
    stream.read(100)  # an upload handler sniffed it already
    images = [read_dicom(data), read_dicom(path), read_dicom(str(path)), read_dicom(stream)]
    for image in images[1:]:
        np.testing.assert_array_equal(image.pixels, images[0].pixels)


def test_signed_and_8_bit_pixel_data_are_read():
    signed = read_dicom(factory.make_dicom(density=DENSITY, signed=True))
    np.testing.assert_array_equal(signed.modality_values, stored(signed=True).astype(np.float32))
    assert signed.modality_values.min() < 0
    eight = read_dicom(factory.make_dicom(density=DENSITY, bits=8))
    np.testing.assert_array_equal(eight.modality_values, stored(bits=8).astype(np.float32))


def test_read_image_dispatches_on_content():
    assert read_image(factory.make_dicom(), "x.png").kind == "dicom"
    assert read_image(factory.make_png(), "x.dcm").kind == "raster"


# --------------------------------------------------------------------------- metadata


def test_metadata_keeps_what_a_reviewer_needs():
    data = factory.make_dicom(
        study_uid="1.2.3.4", series_uid="1.2.3.4.5", sop_uid="1.2.3.4.5.6", view="AP",
        patient_name="Doe^Jane", patient_id="P-77", accession="A-99", window=(2000, 3000),
        laterality="U",
    )
    meta = read_dicom(data).metadata
    assert (meta.study_instance_uid, meta.series_instance_uid, meta.sop_instance_uid) == (
        "1.2.3.4", "1.2.3.4.5", "1.2.3.4.5.6",
    )
    assert meta.sop_class_name == "Digital X-Ray Image Storage - For Presentation"
    assert meta.modality == "DX" and meta.body_part == "CHEST"
    assert meta.view_position == "AP" and meta.view_position_source == "ViewPosition"
    assert meta.laterality == "U"
    assert (meta.patient_name, meta.patient_id) == ("Doe^Jane", "P-77")
    assert meta.accession_number == "A-99"
    assert (meta.patient_sex, meta.patient_age) == ("F", "064Y")
    assert meta.patient_birth_date == "1960-01-01"
    assert (meta.study_date, meta.study_time) == ("2024-01-31", "10:15:30")
    assert meta.institution == "Test Hospital" and meta.manufacturer == "RadReview Test Factory"
    assert (meta.rows, meta.columns, meta.bits_stored) == (256, 256, 12)
    assert meta.photometric_interpretation == "MONOCHROME2"
    assert meta.pixel_spacing == (0.139, 0.139)
    assert meta.transfer_syntax_name == "Explicit VR Little Endian"
    assert (meta.window_center, meta.window_width) == (2000.0, 3000.0)


def test_metadata_to_dict_is_json_and_round_trips():
    meta = read_dicom(factory.make_dicom(view="LATERAL")).metadata
    data = json.loads(json.dumps(meta.to_dict()))
    assert DicomMetadata.from_dict(data) == meta
    assert data["view_position"] == "LATERAL"


def test_metadata_without_phi_drops_identifiers():
    data = read_dicom(factory.make_dicom()).metadata.to_dict(include_phi=False)
    text = json.dumps(data)
    for secret in ("Test^Patient", "PID-0001", "ACC-0001", "19600101", "1960-01-01"):
        assert secret not in text
    assert data["study_instance_uid"] and data["view_position"] == "PA"


@pytest.mark.parametrize(
    "options, view, source",
    [
        ({"view": "PA"}, "PA", "ViewPosition"),
        ({"view": "AP"}, "AP", "ViewPosition"),
        ({"view": "LATERAL"}, "LATERAL", "ViewPosition"),
        ({"view": "RL"}, "LATERAL", "ViewPosition"),
        ({"view": "LLD"}, "OTHER", "ViewPosition"),
        ({"view": None, "series_description": "CHEST P.A."}, "PA", "SeriesDescription"),
        ({"view": None, "series_description": "Thorax lat"}, "LATERAL", "SeriesDescription"),
        ({"view": None, "series_description": "CHEST PORTABLE"}, "AP", "SeriesDescription"),
        ({"view": "", "protocol_name": "CHEST AP SUPINE"}, "AP", "ProtocolName"),
        ({"view": None, "series_description": "PA AND LATERAL", "protocol_name": "Chest"},
         "UNKNOWN", None),
        ({"view": None}, "UNKNOWN", None),
    ],
)
def test_view_position_is_normalised_from_the_tags_that_tell_it(options, view, source):
    meta = read_dicom(factory.make_dicom(**options)).metadata
    assert (meta.view_position, meta.view_position_source) == (view, source)


def test_view_code_sequence_is_used_when_view_position_is_absent():
    ds = factory.make_dicom_dataset(view=None)
    code = pydicom.Dataset()
    code.CodeValue = "R-10206"
    code.CodingSchemeDesignator = "SRT"
    code.CodeMeaning = "postero-anterior"
    ds.ViewCodeSequence = pydicom.Sequence([code])
    meta = read_dicom(factory.dataset_bytes(ds)).metadata
    assert (meta.view_position, meta.view_position_source) == ("PA", "ViewCodeSequence")


def test_patient_orientation_reveals_a_lateral_when_nothing_else_does():
    ds = factory.make_dicom_dataset(view=None)
    ds.PatientOrientation = ["A", "F"]
    meta = read_dicom(factory.dataset_bytes(ds)).metadata
    assert (meta.view_position, meta.view_position_source) == ("LATERAL", "PatientOrientation")


def test_computed_radiography_files_are_read_too():
    meta = read_dicom(factory.make_dicom(sop_class="cr", modality="CR")).metadata
    assert meta.sop_class_uid == ComputedRadiographyImageStorage


def test_deflated_and_big_endian_files_are_read():
    from pydicom.uid import DeflatedExplicitVRLittleEndian, ExplicitVRBigEndian

    deflated = factory.make_dicom_dataset(density=DENSITY)
    deflated.file_meta.TransferSyntaxUID = DeflatedExplicitVRLittleEndian
    big = factory.make_dicom_dataset(density=DENSITY)
    big.PixelData = stored().astype(">u2").tobytes()  # raw bytes are written as they are
    big.file_meta.TransferSyntaxUID = ExplicitVRBigEndian
    for ds in (deflated, big):
        image = read_dicom(factory.dataset_bytes(ds))
        assert image.metadata.transfer_syntax_uid == ds.file_meta.TransferSyntaxUID
        np.testing.assert_array_equal(image.modality_values, stored().astype(np.float32))


def test_file_meta_without_the_preamble_is_read():
    data = factory.make_dicom(density=DENSITY)[132:]  # no preamble, no "DICM"
    image = read_dicom(data)
    np.testing.assert_array_equal(image.modality_values, stored().astype(np.float32))
