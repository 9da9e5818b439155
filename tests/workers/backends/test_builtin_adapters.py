"""The built-in engines behind the role interfaces (workers.imaging, workers.nlp)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from workers.backends import registry
from workers.backends.builtin import AppearanceDescriptorEncoder, RuleExtractor


def test_appearance_descriptor_as_image_encoder():
    registry.configure({})
    model = registry.image_encoder()
    assert isinstance(model, AppearanceDescriptorEncoder)
    assert model.learned is False and model.dim == 512 and model.name
    rows, cols = np.mgrid[0:200, 0:160].astype(np.float32)
    chest = 0.5 + 0.3 * np.sin(rows / 15.0) * np.cos(cols / 11.0)
    copy = np.clip(chest * 0.95 + 0.02, 0, 1)
    other = np.random.default_rng(0).random((200, 160), dtype=np.float32)
    vectors = model.encode([chest, copy, other])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])
    np.testing.assert_array_equal(model.encode([chest]), vectors[:1])  # deterministic
    assert registry.describe()[3].learned is False


def _has_rule_extractor() -> bool:
    if importlib.util.find_spec("workers.nlp") is None:
        return False
    import workers.nlp

    return hasattr(workers.nlp, "extract_graph")


@pytest.mark.skipif(not _has_rule_extractor(), reason="workers.nlp.extract_graph not there yet")
def test_rule_engine_as_extractor():
    registry.configure({})
    model = registry.extractor()
    assert isinstance(model, RuleExtractor)
    graph = model.extract("Small left pleural effusion. No pneumothorax.")
    assert graph is not None
