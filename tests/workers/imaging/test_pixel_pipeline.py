"""The DICOM display pipeline: modality LUT, then VOI LUT or window, then MONOCHROME1
inversion, giving float32 in [0, 1] with bone white for either photometric interpretation."""
import numpy as np
import pydicom
import pytest

from tests.support import dicom_factory as factory
from workers.imaging import read_dicom
from workers.imaging.display import linear_window, percentile_window

DENSITY = factory.chest_phantom(seed=8, rows=192, cols=176)
TOP = 4095  # 12-bit


def read(**options):
    return read_dicom(factory.make_dicom(density=DENSITY, **options))


def stored(**options) -> np.ndarray:
    return factory.stored_values(DENSITY, **options).astype(np.float64)


def test_display_is_float32_in_unit_range_bright_is_dense():
    image = read()
    assert image.pixels.dtype == np.float32
    assert 0.0 <= image.pixels.min() and image.pixels.max() <= 1.0
    # The densest phantom pixels (mediastinum, spine) are the brightest displayed ones.
    dense = DENSITY > np.percentile(DENSITY, 95)
    airy = DENSITY < np.percentile(DENSITY, 5)
    assert image.pixels[dense].mean() > 0.9 and image.pixels[airy].mean() < 0.1


def test_monochrome1_and_monochrome2_of_the_same_anatomy_display_the_same():
    mono2, mono1 = read(photometric="MONOCHROME2"), read(photometric="MONOCHROME1")
    assert mono1.invert and not mono2.invert
    assert (mono1.voi, mono2.voi) == ("percentile", "percentile")
    # Stored values are mirror images; display is identical.
    np.testing.assert_array_equal(mono1.modality_values, TOP - mono2.modality_values)
    np.testing.assert_allclose(mono1.pixels, mono2.pixels, atol=1e-6)


def test_monochrome1_with_a_window_from_the_file_matches_monochrome2():
    center, width = 1800.0, 2400.0
    mono2 = read(photometric="MONOCHROME2", window=(center, width))
    # The same window on mirrored values; +1 from DICOM's LINEAR (c - 0.5, w - 1) convention.
    mono1 = read(photometric="MONOCHROME1", window=(TOP - center + 1, width))
    assert (mono1.voi, mono2.voi) == ("window", "window")
    np.testing.assert_allclose(mono1.pixels, mono2.pixels, atol=1e-6)


def test_monochrome2_with_inverse_presentation_lut_shape_is_inverted():
    plain = read()
    inverse = read(extra={"PresentationLUTShape": "INVERSE"})
    assert inverse.invert
    np.testing.assert_allclose(inverse.pixels, 1.0 - plain.pixels, atol=1e-6)


def test_window_center_and_width_from_the_file_are_honoured():
    center, width = 1500.0, 1200.0
    image = read(window=(center, width))
    values = stored()
    # DICOM PS3.3 C.11.2.1.2.1, LINEAR.
    expected = np.clip((values - (center - 0.5)) / (width - 1) + 0.5, 0, 1)
    assert image.voi == "window"
    np.testing.assert_allclose(image.pixels, expected, atol=1e-5)
    # A narrow window really clips: everything outside it is black or white.
    outside = (values < center - width / 2 - 1) | (values > center + width / 2 + 1)
    assert np.isin(image.pixels[outside], [0.0, 1.0]).all()


def test_the_first_of_several_windows_is_used():
    image = read(extra={"WindowCenter": [1500, 3000], "WindowWidth": [1200, 100]})
    expected = np.clip((stored() - 1499.5) / 1199 + 0.5, 0, 1)
    np.testing.assert_allclose(image.pixels, expected, atol=1e-5)


def test_sigmoid_voi_lut_function_is_honoured():
    center, width = 2000.0, 1500.0
    image = read(window=(center, width), extra={"VOILUTFunction": "SIGMOID"})
    expected = 1.0 / (1.0 + np.exp(-4 * (stored() - center) / width))
    np.testing.assert_allclose(image.pixels, expected, atol=1e-4)


def test_rescale_slope_and_intercept_are_applied_before_windowing():
    center, width = 1500.0, 1200.0
    plain = read(window=(center, width))
    # Same stored values; the window is given in modality units, as DICOM requires.
    slope, intercept = 2.0, -1000.0
    rescaled = read(rescale=(slope, intercept), window=(center * slope + intercept, width * slope))
    np.testing.assert_array_equal(rescaled.modality_values, stored() * slope + intercept)
    np.testing.assert_allclose(rescaled.pixels, plain.pixels, atol=1e-3)
    # Windowing the stored values (rescale skipped) would give a very different picture.
    modality_center = center * slope + intercept
    wrong = linear_window(stored(), modality_center - width, modality_center + width)
    assert np.abs(wrong - rescaled.pixels).mean() > 0.1


def test_voi_lut_sequence_is_honoured():
    image = read(voi_lut=True)
    values = stored()
    first, last = values.min(), values.max()
    expected = np.rint(np.sqrt((values - first) / (last - first)) * 65535) / 65535
    assert image.voi == "voi_lut"
    np.testing.assert_allclose(image.pixels, expected, atol=1e-4)


def test_voi_lut_sequence_wins_over_a_window_and_is_applied_after_rescale():
    image = read(voi_lut=True, window=(100, 10), rescale=(1.0, -500.0))
    values = stored() - 500.0
    first, last = values.min(), values.max()
    expected = np.sqrt((values - first) / (last - first))
    assert image.voi == "voi_lut"
    np.testing.assert_allclose(image.pixels, expected, atol=1e-3)


def test_voi_lut_on_monochrome1_is_inverted_after_the_lut():
    mono1 = read(voi_lut=True, photometric="MONOCHROME1")
    values = mono1.modality_values.astype(np.float64)
    first, last = values.min(), values.max()
    expected = 1 - np.sqrt((values - first) / (last - first))
    np.testing.assert_allclose(mono1.pixels, expected, atol=1e-3)


def test_modality_lut_sequence_is_applied():
    ds = factory.make_dicom_dataset(density=DENSITY, rescale=None)
    item = pydicom.Dataset()
    item.LUTDescriptor = [4096, 0, 16]
    item.add_new(0x00283006, "US", [min(2 * v + 7, 65535) for v in range(4096)])
    item.ModalityLUTType = "US"
    ds.ModalityLUTSequence = pydicom.Sequence([item])
    image = read_dicom(factory.dataset_bytes(ds))
    np.testing.assert_array_equal(image.modality_values, stored() * 2 + 7)


def test_without_voi_the_window_is_robust_to_hot_and_dead_pixels():
    clean = factory.stored_values(DENSITY)
    spoiled = clean.copy()
    spoiled.reshape(-1)[::5000] = TOP  # a few saturated detector elements
    spoiled.reshape(-1)[7::5000] = 0
    a = read_dicom(factory.make_dicom(pixels=clean))
    b = read_dicom(factory.make_dicom(pixels=spoiled))
    body = np.ones(clean.shape, bool)
    body.reshape(-1)[::5000] = body.reshape(-1)[7::5000] = False
    assert np.abs(a.pixels[body] - b.pixels[body]).max() < 0.01
    low, high = percentile_window(clean.astype(np.float32))
    np.testing.assert_allclose(a.pixels, linear_window(clean, low, high), atol=1e-6)


@pytest.mark.parametrize("width", [0, -5])
def test_an_unusable_window_falls_back_to_the_percentile_window(width):
    image = read(window=(2000, width))
    assert image.voi == "percentile"
    np.testing.assert_allclose(image.pixels, read().pixels, atol=1e-6)


def test_a_flat_image_displays_mid_grey_instead_of_failing():
    image = read_dicom(factory.make_dicom(pixels=np.full((32, 32), 700, np.uint16)))
    assert np.all(image.pixels == 0.5)
