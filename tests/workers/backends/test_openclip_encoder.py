"""The open_clip image encoder on tiny random models saved to a folder and loaded back."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from tests.support import tiny_models as tiny
from workers.backends import BackendLoadError, registry
from workers.backends.openclip_encoder import OpenClipImageEncoder
from workers.backends.spec import parse_spec


def images() -> list[np.ndarray]:
    rows, cols = np.mgrid[0:120, 0:90].astype(np.float32)
    gradient = rows / rows.max()
    rings = 0.5 + 0.5 * np.sin(np.hypot(rows - 60, cols - 45) / 6.0)
    wide = np.random.default_rng(3).random((50, 140), dtype=np.float32)
    return [gradient, rings, wide]


def encoder(folder, **options) -> OpenClipImageEncoder:
    query = "&".join(f"{key}={value}" for key, value in {"device": tiny.DEVICE, **options}.items())
    return OpenClipImageEncoder(parse_spec("image_encoder", f"open_clip:{folder}?{query}"))


def test_biomedclip_layout_gives_normalised_512_d_vectors(tiny_clip_dir):
    registry.configure({"image_encoder": f"open_clip:{tiny_clip_dir}"})
    model = registry.image_encoder()
    assert isinstance(model, OpenClipImageEncoder)
    assert model.learned is True and model.dim == 512 and model.name == "tiny-biomedclip"
    assert not hasattr(model.model, "text")  # only the image tower is built
    vectors = model.encode(images())
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert abs(float(vectors[0] @ vectors[1])) < 0.999  # different images, different vectors
    assert model.encode([]).shape == (0, 512)


def test_reloading_gives_the_same_vectors(tiny_clip_dir):
    first = encoder(tiny_clip_dir).encode(images())
    second = encoder(tiny_clip_dir, batch_size=2).encode(images())
    np.testing.assert_allclose(first, second, atol=1e-5)


def test_the_saved_weights_are_the_ones_used(tiny_clip_dir, tmp_path):
    other = tiny.build_biomedclip_like(tmp_path / "other-seed", seed=1)
    assert not np.allclose(encoder(tiny_clip_dir).encode(images()),
                           encoder(other).encode(images()), atol=1e-3)


def test_preprocessing_follows_the_config(tiny_clip_dir):
    model = encoder(tiny_clip_dir)
    tensor = model.preprocess(np.ones((50, 140), dtype=np.float32))
    assert tuple(tensor.shape) == (3, 160, 160)
    expected = (1.0 - torch.tensor(tiny.BIOMEDCLIP_PREPROCESS["mean"])) / torch.tensor(
        tiny.BIOMEDCLIP_PREPROCESS["std"])
    torch.testing.assert_close(tensor[:, 80, 80], expected)
    letterboxed = encoder(tiny_clip_dir, fit="letterbox").preprocess(
        np.ones((50, 140), dtype=np.float32))
    mean0, std0 = tiny.BIOMEDCLIP_PREPROCESS["mean"][0], tiny.BIOMEDCLIP_PREPROCESS["std"][0]
    assert float(letterboxed[0, 0, 80]) == pytest.approx((0.0 - mean0) / std0)  # black bar
    assert float(letterboxed[0, 80, 80]) == pytest.approx((1.0 - mean0) / std0)


def test_native_open_clip_tower_from_safetensors(tmp_path):
    folder = tiny.build_native_clip(tmp_path / "native")
    vectors = encoder(folder).encode(images())
    assert vectors.shape == (3, 512)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_weights_that_do_not_fit_the_config_fail_clearly(tmp_path):
    folder = tiny.build_native_clip(tmp_path / "mismatch", width=64)
    config = json.loads((folder / "open_clip_config.json").read_text())
    config["model_cfg"]["vision_cfg"]["width"] = 96
    (folder / "open_clip_config.json").write_text(json.dumps(config))
    with pytest.raises(BackendLoadError, match="RADREVIEW_IMAGE_ENCODER: the weights in .* do "
                                               "not fit the image tower"):
        encoder(folder)
