"""PNG previews and thumbnails: 8-bit grayscale, aspect kept, never upscaled, lossless when
no downscaling is needed; and square model inputs."""
import io

import numpy as np
import pytest
from PIL import Image

from tests.support import dicom_factory as factory
from workers.imaging import (
    encode_png,
    fit_square,
    read_dicom,
    render,
    thumbnail,
    to_model_input,
    to_pil_rgb,
    to_uint8,
)


def decode(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    return image


def test_png_round_trip_is_exact_when_no_downscale_is_needed():
    image = read_dicom(factory.make_dicom(rows=300, cols=240))
    png = decode(encode_png(image.pixels))
    assert png.mode == "L" and png.size == (240, 300)
    np.testing.assert_array_equal(np.asarray(png), to_uint8(image.pixels))


def test_uint8_renders_encode_as_they_are():
    image = read_dicom(factory.make_dicom(rows=64, cols=64))
    lung = render(image, "lung")
    np.testing.assert_array_equal(np.asarray(decode(encode_png(lung))), lung)


@pytest.mark.parametrize(
    "shape, max_side, size",
    [
        ((1500, 2000), 1024, (1024, 768)),
        ((2000, 1500), 1024, (768, 1024)),
        ((3000, 1000), 256, (85, 256)),
    ],
)
def test_downscaling_keeps_the_aspect_ratio(shape, max_side, size):
    pixels = np.random.default_rng(0).random(shape, dtype=np.float32)
    png = decode(encode_png(pixels, max_side=max_side))
    assert png.size == size  # (width, height)


def test_downscaled_preview_looks_like_the_image():
    pixels = factory.chest_phantom(1, 1024, 1024).astype(np.float32)
    small = np.asarray(decode(encode_png(pixels, max_side=256)), dtype=float) / 255
    reference = pixels.reshape(256, 4, 256, 4).mean(axis=(1, 3))
    assert np.abs(small - reference).mean() < 0.01


def test_thumbnail_fits_in_256_and_small_images_are_not_upscaled():
    pixels = factory.chest_phantom(3, 700, 500).astype(np.float32)
    assert max(decode(thumbnail(pixels)).size) == 256
    assert decode(thumbnail(pixels[:100, :80])).size == (80, 100)


def test_encode_png_refuses_colour_arrays():
    with pytest.raises(ValueError):
        encode_png(np.zeros((10, 10, 3), np.uint8))


# --------------------------------------------------------------------------- model inputs


def test_model_input_is_square_three_channel_float_in_unit_range():
    pixels = factory.chest_phantom(4, 300, 260).astype(np.float32)
    x = to_model_input(pixels)
    assert x.shape == (3, 224, 224) and x.dtype == np.float32
    assert 0.0 <= x.min() and x.max() <= 1.0
    np.testing.assert_array_equal(x[0], x[2])
    assert to_model_input(pixels, 96, channels=1).shape == (1, 96, 96)


def test_letterbox_keeps_the_whole_image_and_pads_with_black():
    wide = np.ones((100, 200), np.float32)
    square = fit_square(wide, 64)
    assert (square[:16] == 0).all() and (square[-16:] == 0).all()
    assert np.allclose(square[16:48], 1.0)


def test_crop_fills_the_square_from_the_centre():
    wide = np.zeros((100, 200), np.float32)
    wide[:, 40:160] = 1.0  # a little more than the centre square
    square = fit_square(wide, 64, fit="crop")
    assert square.min() > 0.99


def test_uint8_pixels_are_understood_as_0_to_255():
    pixels = factory.chest_phantom(5, 128, 128)
    as_float = fit_square(pixels.astype(np.float32), 64)
    as_uint8 = fit_square(to_uint8(pixels), 64)
    assert np.abs(as_float - as_uint8).max() < 0.01


def test_pil_rgb_for_encoder_transforms():
    pixels = factory.chest_phantom(6, 300, 260).astype(np.float32)
    image = to_pil_rgb(pixels)
    assert image.mode == "RGB" and image.size == (260, 300)
    squared = to_pil_rgb(pixels, 224)
    assert squared.size == (224, 224)
    rgb = np.asarray(squared)
    assert (rgb[..., 0] == rgb[..., 1]).all()
