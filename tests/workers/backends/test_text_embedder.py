"""The text embedder: the built-in all-MiniLM-L6-v2 (real weights, shipped by a package)."""
from __future__ import annotations

import numpy as np
import pytest

from workers.backends import BackendConfigError, registry
from workers.backends.devices import native_bfloat16
from workers.backends.sentence_embedder import SentenceTransformerEmbedder, builtin_model_path


@pytest.fixture(scope="module")
def builtin_embedder():
    return SentenceTransformerEmbedder(builtin_model_path(), name="all-MiniLM-L6-v2")


def test_builtin_through_the_registry():
    registry.configure({})
    model = registry.text_embedder()
    assert isinstance(model, SentenceTransformerEmbedder)
    assert (model.name, model.dim, model.device) == ("all-MiniLM-L6-v2", 384, "cpu")
    assert registry.text_embedder() is model


def test_paraphrases_are_closer_than_unrelated_findings(builtin_embedder):
    vectors = builtin_embedder.embed(["There is a small left pleural effusion.",
                                      "Small left-sided effusion.",
                                      "No pneumothorax.",
                                      "Degenerative changes of the thoracic spine."])
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    paraphrase = float(vectors[0] @ vectors[1])
    assert paraphrase > 0.6
    assert paraphrase > float(vectors[0] @ vectors[2]) + 0.1  # another pleural finding
    assert paraphrase > float(vectors[0] @ vectors[3]) + 0.4  # an unrelated one
    assert builtin_embedder.embed([]).shape == (0, 384)


def test_any_sentence_transformers_folder(tmp_path):
    folder = builtin_model_path()
    registry.configure({"text_embedder": f"sentence-transformers:{folder}?name=minilm-copy"
                                         "&batch_size=2"})
    model = registry.text_embedder()
    assert model.name == "minilm-copy" and model.batch_size == 2
    assert model.embed(["a", "b", "c"]).shape == (3, 384)
    with pytest.raises(BackendConfigError, match="RADREVIEW_TEXT_EMBEDDER: folder .* does not"):
        registry.configure({"text_embedder": f"sentence-transformers:{tmp_path / 'none'}"})


def test_bfloat16_vectors_agree_with_float32():
    """The faster precision is the same model: each text's vector within cosine 0.999 of its
    float32 vector, float32 and unit length on the way out."""
    texts = ["There is a small left pleural effusion.", "No pneumothorax.",
             "Heart size is normal. The mediastinal contour is within normal limits."]
    exact = SentenceTransformerEmbedder(builtin_model_path(), precision="float32")
    fast = SentenceTransformerEmbedder(builtin_model_path(), precision="bfloat16")
    assert (exact.precision, fast.precision) == ("float32", "bfloat16")
    a, b = exact.embed(texts), fast.embed(texts)
    assert b.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-5)
    assert np.all(np.sum(a * b, axis=1) > 0.999)
    assert not np.array_equal(a, b)  # autocast really ran in bfloat16


def test_auto_precision_follows_the_hardware():
    model = SentenceTransformerEmbedder(builtin_model_path(), precision="auto")
    assert model.precision == ("bfloat16" if native_bfloat16("cpu") else "float32")


def test_precision_option_of_a_folder():
    folder = builtin_model_path()
    registry.configure({"text_embedder": f"sentence-transformers:{folder}?precision=float32"})
    assert registry.text_embedder().precision == "float32"
    with pytest.raises(BackendConfigError, match="RADREVIEW_TEXT_EMBEDDER: .*precision"):
        registry.configure({"text_embedder": f"sentence-transformers:{folder}?precision=float16"})
