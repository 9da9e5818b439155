"""PNG and JPEG uploads: verified, fully decoded, converted to grayscale; damaged, bomb-sized
or animated files are refused with a message."""
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from tests.support import dicom_factory as factory
from workers.imaging import (
    MAX_PIXELS,
    MalformedImage,
    NotAnImage,
    RasterImage,
    UnsupportedImage,
    read_raster,
)

DENSITY = factory.chest_phantom(seed=9, rows=160, cols=144)


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@pytest.mark.parametrize("mode", ["L", "RGB", "RGBA", "P"])
def test_8_bit_png_reads_as_its_grey_levels(mode):
    image = read_raster(factory.make_png(DENSITY, mode=mode))
    assert isinstance(image, RasterImage) and image.format == "png" and image.mode == mode
    assert image.pixels.dtype == np.float32 and image.pixels.shape == (160, 144)
    expected = np.rint(DENSITY * 255) / 255
    tolerance = 0 if mode in ("L", "RGB", "RGBA") else 2 / 255  # a palette may merge levels
    assert np.abs(image.pixels - expected).max() <= tolerance + 1e-6
    assert not image.was_colour  # grey saved as RGB is still grey


def test_16_bit_png_gets_the_robust_window():
    image = read_raster(factory.make_png(DENSITY * 0.25, mode="I;16"))  # a 14-bit range used
    assert image.bit_depth == 16
    assert image.pixels.min() == 0.0 and image.pixels.max() == 1.0
    assert image.modality_values.max() < 16384


def test_jpeg_reads_close_to_the_original():
    image = read_raster(factory.make_jpeg(DENSITY, quality=95))
    assert image.format == "jpeg"
    assert np.abs(image.pixels - DENSITY).mean() < 0.01


def test_genuinely_coloured_images_are_converted_and_flagged():
    rgb = np.zeros((32, 32, 3), np.uint8)
    rgb[..., 0] = 200  # red
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="PNG")
    image = read_raster(buffer.getvalue())
    assert image.was_colour
    assert np.allclose(image.pixels, round(0.299 * 200) / 255, atol=1 / 255)


def test_exif_orientation_is_applied():
    buffer = io.BytesIO()
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise for display
    Image.fromarray(np.rint(DENSITY * 255).astype(np.uint8)).save(buffer, format="JPEG", exif=exif)
    assert read_raster(buffer.getvalue()).pixels.shape == (144, 160)


def test_truncated_png_and_jpeg_are_refused():
    for data, label in ((factory.make_png(DENSITY), "PNG"), (factory.make_jpeg(DENSITY), "JPEG")):
        with pytest.raises(MalformedImage) as caught:
            read_raster(data[: len(data) // 2])
        expected = f"The {label} file is damaged or truncated and cannot be decoded."
        assert caught.value.message == expected
        assert type(caught.value) is MalformedImage


def test_png_with_a_corrupted_chunk_checksum_is_refused():
    data = bytearray(factory.make_png(DENSITY))
    data[60] ^= 0xFF  # inside the first IDAT chunk
    with pytest.raises(MalformedImage):
        read_raster(bytes(data))


def huge_png(width: int, height: int) -> bytes:
    """A PNG whose header declares width × height (its data is a stub, never reached)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", zlib.compress(b"\0" * 100)) + png_chunk(b"IEND", b"")
    )


def test_a_png_declaring_more_than_the_limit_is_refused_from_its_header():
    assert 7000 * 7000 > MAX_PIXELS
    with pytest.raises(UnsupportedImage) as caught:
        read_raster(huge_png(7000, 7000))
    assert "7000 × 7000 pixels" in caught.value.message
    assert "megapixel limit" in caught.value.message


def test_a_decompression_bomb_header_is_refused():
    with pytest.raises(UnsupportedImage) as caught:
        read_raster(huge_png(40000, 40000))
    assert "megapixel limit" in caught.value.message


def test_pillows_decompression_bomb_guard_becomes_a_refusal(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    with pytest.raises(UnsupportedImage) as caught:
        read_raster(factory.make_png(DENSITY))
    assert "too large to open safely" in caught.value.message


def test_animated_png_is_refused():
    frames = [Image.fromarray(np.full((16, 16), v, np.uint8)) for v in (0, 128, 255)]
    buffer = io.BytesIO()
    frames[0].save(buffer, format="PNG", save_all=True, append_images=frames[1:])
    with pytest.raises(UnsupportedImage, match="Animated PNG"):
        read_raster(buffer.getvalue())


def test_non_raster_files_are_not_images():
    with pytest.raises(NotAnImage, match="DICOM file"):
        read_raster(factory.make_dicom())
    with pytest.raises(NotAnImage, match="GIF image"):
        read_raster(b"GIF89a" + bytes(100))
