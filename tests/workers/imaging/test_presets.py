"""Window/level presets: relative to the image's own intensity distribution, identical for
MONOCHROME1 and MONOCHROME2, re-windowed from the modality values."""
import numpy as np
import pytest

from tests.support import dicom_factory as factory
from workers.imaging import (
    PRESETS,
    WindowPreset,
    apply_preset,
    read_dicom,
    read_raster,
    render,
    render_all,
    render_window,
    to_uint8,
    window_for_preset,
)

DENSITY = factory.chest_phantom(seed=2, rows=200, cols=180)


@pytest.fixture(scope="module")
def mono2():
    return read_dicom(factory.make_dicom(density=DENSITY, window=(1600, 2600)))


@pytest.fixture(scope="module")
def mono1():
    return read_dicom(factory.make_dicom(density=DENSITY, photometric="MONOCHROME1",
                                         window=(4095 - 1600 + 1, 2600)))


def test_the_presets_the_review_page_offers():
    assert list(PRESETS) == [
        "default", "full_range", "lung", "soft_tissue", "bone", "high_contrast",
    ]
    for preset in PRESETS.values():
        assert preset.label and preset.description


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_renders_8_bit_images_of_the_same_shape(mono2, name):
    out = render(mono2, name)
    assert out.dtype == np.uint8 and out.shape == mono2.pixels.shape
    assert out.max() > out.min()


def test_default_is_the_files_own_window(mono2):
    np.testing.assert_array_equal(render(mono2, "default"), to_uint8(mono2.pixels))


def test_full_range_maps_darkest_to_black_and_brightest_to_white(mono2):
    out = render(mono2, "full_range")
    values = mono2.modality_values
    assert (out[values == values.min()] == 0).all() and (out[values == values.max()] == 255).all()


@pytest.mark.parametrize("name", list(PRESETS))
def test_monochrome1_and_monochrome2_render_alike_under_every_preset(mono1, mono2, name):
    diff = np.abs(render(mono1, name).astype(int) - render(mono2, name).astype(int))
    assert diff.max() <= 1


def test_lung_spreads_the_dark_half_and_soft_tissue_the_dense_half(mono2):
    dark = DENSITY < np.median(DENSITY)
    lung, soft = render(mono2, "lung").astype(float), render(mono2, "soft_tissue").astype(float)
    assert lung[dark].std() > 1.5 * soft[dark].std()
    assert soft[~dark].std() > 1.5 * lung[~dark].std()
    assert lung.mean() > soft.mean()  # dense tissue saturates white in the lung window


def test_bone_preset_sharpens_edges(mono2):
    plain = to_uint8(apply_preset(mono2, "bone"))
    sharpened = render(mono2, "bone")
    assert np.abs(np.diff(sharpened.astype(float), axis=0)).mean() > np.abs(
        np.diff(plain.astype(float), axis=0)
    ).mean()


def test_presets_are_relative_so_exposure_does_not_change_them():
    a = read_dicom(factory.make_dicom(density=DENSITY))
    brighter = read_dicom(factory.make_dicom(density=DENSITY, rescale=(1.5, 300.0)))
    for name in ("full_range", "lung", "soft_tissue", "high_contrast"):
        assert np.abs(render(a, name).astype(int) - render(brighter, name).astype(int)).max() <= 1


def test_window_for_preset_reports_a_centre_and_width_that_reproduce_it(mono1, mono2):
    for image in (mono1, mono2):
        center, width = window_for_preset(image, "soft_tissue")
        assert width > 0
        manual = render_window(image, center, width).astype(int)
        assert np.abs(manual - render(image, "soft_tissue").astype(int)).max() <= 1
    assert window_for_preset(mono2, "default") is None


def test_render_window_honours_a_manual_window_in_modality_units(mono2):
    out = render_window(mono2, 2000, 1000)
    values = mono2.modality_values
    assert (out[values <= 1500] == 0).all() and (out[values >= 2500] == 255).all()
    with pytest.raises(ValueError):
        render_window(mono2, 2000, 0)


def test_arrays_and_raster_images_take_presets_too():
    array = DENSITY.astype(np.float32)
    assert render(array, "lung").shape == array.shape
    raster = read_raster(factory.make_png(DENSITY))
    np.testing.assert_array_equal(render(raster, "default"), to_uint8(raster.pixels))
    assert render(raster, "soft_tissue").mean() < render(raster, "lung").mean()


def test_render_all_and_custom_presets(mono2):
    assert set(render_all(mono2)) == set(PRESETS)
    custom = WindowPreset("mine", "Mine", "a test window", 10.0, 90.0)
    assert render(mono2, custom).shape == mono2.pixels.shape
    with pytest.raises(ValueError, match="unknown window preset"):
        render(mono2, "hounsfield")
