"""The static text embedder: a word-piece table distilled from a tiny sentence-transformers
model the test builds, kept on disk and read back."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from tests.support import tiny_models as tiny
from workers.backends import BackendConfigError, registry
from workers.backends import static_embedder as static
from workers.backends.static_embedder import CACHE_SUBDIR, StaticEmbedder, model_key

TEXTS = ["There is a small left pleural effusion.", "No pneumothorax.",
         "Heart size is normal.", "There is a small left pleural effusion."]


@pytest.fixture(scope="module")
def tiny_st_dir(tmp_path_factory):
    return tiny.build_sentence_transformer(tmp_path_factory.mktemp("models") / "tiny-st")


def test_vectors_are_unit_length_and_the_same_for_the_same_text(tiny_st_dir, tmp_path):
    model = StaticEmbedder(tiny_st_dir, name="tiny-static", cache_dir=tmp_path)
    vectors = model.embed(TEXTS)
    assert vectors.shape == (4, 16) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(vectors[0], vectors[3])
    np.testing.assert_array_equal(vectors[0], model.embed([TEXTS[0]])[0])
    assert float(vectors[0] @ vectors[1]) < 0.999
    assert model.embed([]).shape == (0, 16)
    # the special pieces carry nothing: a text is its words, however it is framed
    specials = model.tokenizer.all_special_ids
    assert not np.any(model.table[[i for i in specials if i != model.tokenizer.unk_token_id]])


def test_the_kept_table_is_read_back_not_made_again(tiny_st_dir, tmp_path, monkeypatch):
    first = StaticEmbedder(tiny_st_dir, name="tiny-static", cache_dir=tmp_path)
    assert first.made
    assert (tmp_path / CACHE_SUBDIR / f"{first.key}.npy").is_file()
    assert not [p for p in (tmp_path / CACHE_SUBDIR).iterdir() if p.name.startswith(".partial")]

    def no_distilling(path):
        raise AssertionError("the table was made again")

    monkeypatch.setattr(static, "distil_table", no_distilling)
    second = StaticEmbedder(tiny_st_dir, name="tiny-static", cache_dir=tmp_path)
    assert not second.made
    np.testing.assert_array_equal(first.embed(TEXTS), second.embed(TEXTS))


def test_a_damaged_table_is_made_again(tiny_st_dir, tmp_path):
    first = StaticEmbedder(tiny_st_dir, name="tiny-static", cache_dir=tmp_path)
    (tmp_path / CACHE_SUBDIR / f"{first.key}.npy").write_bytes(b"not a table")
    again = StaticEmbedder(tiny_st_dir, name="tiny-static", cache_dir=tmp_path)
    assert again.made
    np.testing.assert_array_equal(first.table, again.table)


def test_a_changed_model_gets_a_new_key(tiny_st_dir, tmp_path):
    copy = shutil.copytree(tiny_st_dir, tmp_path / "copy")  # copy2 keeps sizes and times
    assert model_key(copy, "tiny") == model_key(tiny_st_dir, "tiny")
    assert model_key(tiny_st_dir, "other") != model_key(tiny_st_dir, "tiny")
    retrained = tiny.build_sentence_transformer(tmp_path / "retrained", seed=1)
    assert model_key(retrained, "tiny") != model_key(tiny_st_dir, "tiny")
    new = StaticEmbedder(retrained, name="tiny", cache_dir=tmp_path / "cache")
    old = StaticEmbedder(tiny_st_dir, name="tiny", cache_dir=tmp_path / "cache")
    assert new.made and old.made
    assert not np.array_equal(new.embed(TEXTS), old.embed(TEXTS))


def test_builtin_static_is_a_setting_of_the_text_embedder_only():
    specs = registry.configure({"text_embedder": "builtin-static"})
    assert specs["text_embedder"].describe() == "builtin-static"
    [status] = [s for s in registry.describe() if s.role == "text_embedder"]
    assert (status.model, status.loaded) == ("all-MiniLM-L6-v2-static", False)
    with pytest.raises(BackendConfigError, match="RADREVIEW_LLM"):
        registry.configure({"llm": "builtin-static"})
