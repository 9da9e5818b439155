"""The built-in appearance descriptor: 512-d, unit length, deterministic, no learned weights;
a slightly altered copy of an image stays nearer to its source than to other chest images."""
import numpy as np
import pytest

from tests.support import dicom_factory as factory
from tests.support.image_alterations import alterations
from workers import imaging
from workers.imaging import (
    APPEARANCE_DESCRIPTOR_NAME,
    DESCRIPTOR_DIM,
    describe,
    read_dicom,
    read_raster,
    similarity,
)

SHAPE = (288, 256)
LIBRARY_SIZE = 21  # a source and 20 other chest-like images
SOURCES = range(0, LIBRARY_SIZE, 4)


@pytest.fixture(scope="module")
def library():
    images = [
        factory.chest_phantom(seed, *SHAPE).astype(np.float32) for seed in range(LIBRARY_SIZE)
    ]
    return images, np.stack([describe(image) for image in images])


def test_descriptor_is_512_float32_unit_length_and_named():
    vector = describe(factory.chest_phantom(0, 200, 180))
    assert vector.shape == (DESCRIPTOR_DIM,) == (512,) and vector.dtype == np.float32
    assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    assert APPEARANCE_DESCRIPTOR_NAME == "builtin-appearance-v1"
    assert "no learned weights" in describe.__doc__.lower()
    assert "NO LEARNED WEIGHTS" in imaging.descriptor.__doc__


def test_descriptor_is_deterministic():
    image = factory.chest_phantom(1, 300, 280)
    np.testing.assert_array_equal(describe(image), describe(image.copy()))


def test_blank_and_tiny_images_still_give_unit_vectors():
    for image in (np.zeros((64, 64), np.float32), np.full((3, 5), 0.5, np.float32)):
        assert np.linalg.norm(describe(image)) == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ValueError):
        describe(np.zeros((8, 8, 3), np.float32))


@pytest.mark.parametrize("alteration", list(alterations(SHAPE)))
def test_an_altered_copy_is_nearest_to_its_source(library, alteration):
    images, descriptors = library
    alter = alterations(SHAPE)[alteration]
    for source in SOURCES:
        sims = descriptors @ describe(alter(images[source]))
        others = np.delete(sims, source)
        margin = sims[source] - others.max()
        assert margin > 0, f"{alteration} of image {source}: margin {margin:.4f}"


def test_different_images_are_told_apart(library):
    _, descriptors = library
    sims = descriptors @ descriptors.T
    off_diagonal = sims[~np.eye(LIBRARY_SIZE, dtype=bool)]
    assert off_diagonal.max() < 0.99


def test_the_same_exposure_from_dicom_monochrome1_monochrome2_j2k_and_png_embeds_alike(library):
    images, descriptors = library
    density = factory.chest_phantom(7, *SHAPE)
    copies = [
        read_dicom(factory.make_dicom(density=density)),
        read_dicom(factory.make_dicom(density=density, photometric="MONOCHROME1")),
        read_dicom(factory.make_dicom(density=density, compress="jpeg2000")),
        read_raster(factory.make_png(density)),
    ]
    vectors = [describe(copy) for copy in copies]  # accepts the image objects too
    for vector in vectors:
        assert similarity(vector, vectors[0]) > 0.999
        assert int(np.argmax(descriptors @ vector)) == 7


def test_larger_resolution_of_the_same_image_embeds_alike():
    small, large = factory.chest_phantom(3, 256, 256), factory.chest_phantom(3, 1024, 1024)
    assert similarity(describe(small), describe(large)) > 0.99
