"""The built-in engines behind the role interfaces (workers.imaging, workers.nlp)."""
from __future__ import annotations

import numpy as np

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


def test_rule_engine_as_extractor():
    from workers.nlp.graph import Graph

    registry.configure({})
    model = registry.extractor()
    assert isinstance(model, RuleExtractor)
    text = "Small left pleural effusion. No pneumothorax."
    graph = model.extract(text)
    assert isinstance(graph, Graph) and graph.text == text
    labels = {entity.label for entity in graph.entities}
    assert {"OBS-DP", "OBS-DA"} <= labels
    result = registry.probe("extractor")
    assert result.ok and "entities in a three-sentence test report" in result.detail
