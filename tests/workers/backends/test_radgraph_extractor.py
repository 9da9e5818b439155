"""The radgraph extractor: start-up checks, the transformers 5 incompatibility, local loading."""
from __future__ import annotations

import json

import pytest

from tests.support import tiny_models as tiny
from workers.backends import BackendConfigError, BackendLoadError, configure
from workers.backends.radgraph_extractor import (
    RadGraphExtractor,
    check_radgraph_folder,
    compatibility_problem,
)
from workers.backends.spec import parse_spec

INCOMPATIBLE = compatibility_problem() is not None


def test_missing_folder_names_the_setting_and_path(tmp_path):
    with pytest.raises(BackendConfigError,
                       match=f"^RADREVIEW_EXTRACTOR: folder {tmp_path / 'rg'} does not exist$"):
        configure({"extractor": f"radgraph:{tmp_path / 'rg'}"})


def test_folder_layout_problems(tmp_path):
    assert check_radgraph_folder(tmp_path, "radgraph-xl") == [
        f"folder {tmp_path} has no radgraph-xl/ subfolder (unpack radgraph-xl.tar.gz from the "
        f"radgraph model files into {tmp_path / 'radgraph-xl'})"]
    tiny.build_radgraph_folder(tmp_path, with_weights=False)
    problems = check_radgraph_folder(tmp_path, "radgraph-xl")
    assert problems == [f"{tmp_path / 'radgraph-xl'} has no weights.th"]
    with pytest.raises(BackendConfigError, match="RADREVIEW_EXTRACTOR: .* has no weights.th"):
        configure({"extractor": f"radgraph:{tmp_path}"})


def test_encoder_must_be_available_offline(tmp_path):
    tiny.build_radgraph_folder(tmp_path)
    config_path = tmp_path / "radgraph-xl" / "config.json"
    config = json.loads(config_path.read_text())
    config["model"]["embedder"]["token_embedders"]["bert"]["model_name"] = (
        "example-org/never-downloaded-bert")
    config_path.write_text(json.dumps(config))
    problems = check_radgraph_folder(tmp_path, "radgraph-xl")
    assert len(problems) == 1
    assert "names the encoder 'example-org/never-downloaded-bert', which is neither a local " \
           "folder with a config.json nor in the Hugging Face cache" in problems[0]


@pytest.mark.skipif(not INCOMPATIBLE, reason="this transformers can run radgraph")
def test_complete_folder_fails_at_startup_on_transformers_5(tmp_path):
    tiny.build_radgraph_folder(tmp_path)
    with pytest.raises(BackendConfigError) as caught:
        configure({"extractor": f"radgraph:{tmp_path}"})
    message = str(caught.value)
    assert message.startswith("RADREVIEW_EXTRACTOR: radgraph 0.1.18 cannot run with "
                              "transformers 5.")
    assert "tokenizer.encode_plus() and tokenizer.build_inputs_with_special_tokens()" in message
    with pytest.raises(BackendLoadError, match="cannot run with transformers"):
        RadGraphExtractor(parse_spec("extractor", f"radgraph:{tmp_path}"))


@pytest.mark.skipif(not INCOMPATIBLE, reason="this transformers can run radgraph")
def test_the_incompatibility_is_what_radgraph_hits(tmp_path):
    """Not just a feature check: radgraph's own loader fails on encode_plus."""
    from radgraph import RadGraph

    tiny.build_radgraph_folder(tmp_path)
    with pytest.raises(AttributeError, match="encode_plus"):
        RadGraph(model_type="radgraph-xl", model_cache_dir=str(tmp_path), cuda=-1)


def _transformers_4_tokenizer_api(monkeypatch):
    """Give tokenizers back the two methods radgraph needs, as transformers 4 had them."""
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase

    def encode_plus(self, text, text_pair=None, **kwargs):
        return self(text, text_pair, **kwargs)

    def build_inputs_with_special_tokens(self, ids, pair=None):
        tail = pair + [self.sep_token_id] if pair else []
        return [self.cls_token_id, *ids, self.sep_token_id, *tail]

    monkeypatch.setattr(PreTrainedTokenizerBase, "encode_plus", encode_plus, raising=False)
    monkeypatch.setattr(PreTrainedTokenizerBase, "build_inputs_with_special_tokens",
                        build_inputs_with_special_tokens, raising=False)


def test_loads_a_local_folder_without_download_when_the_api_is_there(tmp_path, monkeypatch):
    """The backend's own loading path, on a tiny random RadGraph model, with the hub offline.

    On transformers 5 the test restores the two removed tokenizer methods first; this shows
    that the folder layout and the loading code are right for the day radgraph is fixed.
    """
    if INCOMPATIBLE:
        _transformers_4_tokenizer_api(monkeypatch)
    assert compatibility_problem() is None
    tiny.build_radgraph_folder(tmp_path)
    tiny.write_radgraph_weights(tmp_path)
    setting = f"radgraph:{tmp_path}?device={tiny.DEVICE}"
    configure({"extractor": setting})
    extractor = RadGraphExtractor(parse_spec("extractor", setting))
    assert extractor.name == "radgraph-xl"
    text = "There is a small left pleural effusion. No pneumothorax."
    annotation = extractor.annotate(text)
    assert annotation["text"].startswith("There is a small left pleural effusion")
    labels = {entity["label"] for entity in annotation["entities"].values()}
    assert labels and labels <= {"ANAT-DP", "OBS-DP", "OBS-U", "OBS-DA"}
    graph = extractor.extract(text)  # converted by workers.nlp.graph.graph_from_radgraph
    assert graph.text == text and len(graph.entities) == len(annotation["entities"])
    assert all(text[entity.start:entity.end] == entity.tokens for entity in graph.entities)
