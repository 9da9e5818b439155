"""Spec grammar and start-up validation: every problem names the setting an operator must fix."""
from __future__ import annotations

import json

import pytest

from workers.backends import BackendConfigError, configure, parse_spec, validate_specs
from workers.backends.spec import specs_from_environ


def make_transformers_folder(path, *, chat_template=True, processor=False, weights=True):
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    if weights:
        (path / "model.safetensors").write_bytes(b"")
    tokenizer_config = {"chat_template": "{{ messages }}"} if chat_template else {}
    (path / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    if processor:
        (path / "preprocessor_config.json").write_text("{}")
    return path


def test_builtin_in_any_case():
    spec = parse_spec("llm", " Builtin ")
    assert spec.is_builtin and spec.kind == "builtin" and spec.location == ""


def test_transformers_spec_with_typed_options(tmp_path):
    spec = parse_spec("llm", f"transformers:{tmp_path}?device=cuda&dtype=bfloat16"
                             "&max_new_tokens=64")
    assert spec.kind == "transformers"
    assert spec.location == str(tmp_path)
    assert spec.options["device"] == "cuda"
    assert spec.options["dtype"] == "bfloat16"
    assert spec.options["max_new_tokens"] == 64
    assert spec.options["batch_size"] == 8  # default filled in
    assert spec.options["trust_remote_code"] is False
    assert parse_spec("generator", f"transformers:{tmp_path}?trust_remote_code=yes"
                      ).options["trust_remote_code"] is True
    assert spec.setting == "RADREVIEW_LLM"


def test_openai_spec_normalises_url_and_hides_credentials():
    spec = parse_spec("llm", "openai:http://user:secret@gpu-host:8000/v1/chat/completions"
                             "?model=qwen&api_key_env=OPENAI_API_KEY&timeout=30&retries=2"
                             "&concurrency=8")
    assert spec.location == "http://user:secret@gpu-host:8000/v1"
    assert spec.display_location == "http://gpu-host:8000/v1"
    assert "secret" not in spec.describe()
    assert spec.options["timeout"] == 30.0 and spec.options["retries"] == 2
    assert spec.options["concurrency"] == 8 and spec.options["model"] == "qwen"


@pytest.mark.parametrize("kind_spelling", ["open_clip", "open-clip", "OPEN_CLIP"])
def test_kind_spellings(tmp_path, kind_spelling):
    assert parse_spec("image_encoder", f"{kind_spelling}:{tmp_path}").kind == "open_clip"


@pytest.mark.parametrize("role, text, expected", [
    ("llm", "vllm:http://x/v1", "RADREVIEW_LLM: unknown backend kind 'vllm' for the llm role"),
    ("llm", "open_clip:/models/x", "RADREVIEW_LLM: unknown backend kind 'open_clip'"),
    ("image_encoder", "transformers:/m", "RADREVIEW_IMAGE_ENCODER: unknown backend kind"),
    ("text_embedder", "", "RADREVIEW_TEXT_EMBEDDER: is empty"),
    ("generator", "transformers:", "RADREVIEW_GENERATOR: transformers needs a location"),
    ("llm", "transformers:/m?colour=red",
     "RADREVIEW_LLM: unknown option 'colour' for transformers; known options:"),
    ("llm", "transformers:/m?max_new_tokens=0", "RADREVIEW_LLM: option max_new_tokens: must be"),
    ("llm", "transformers:/m?device=gpu", "RADREVIEW_LLM: option device: expected auto, cpu"),
    ("llm", "transformers:/m?device=cpu&device=cuda", "option 'device' is given twice"),
    ("llm", "openai:http://h:8000/v1", "RADREVIEW_LLM: openai needs the option model="),
    ("llm", "openai:http://h:8000/v1?model=m&timeout=soon",
     "RADREVIEW_LLM: option timeout: expected a number"),
    ("llm", "openai:http://h:8000/v1?model=m&timeout=0", "option timeout: must be greater than 0"),
    ("generator", "openai:ftp://h/v1?model=m", "RADREVIEW_GENERATOR: 'ftp://h/v1' is not an"),
    ("generator", "openai:http:///v1?model=m", "is not an http(s) URL"),
    ("llm", "openai:http://h:99999/v1?model=m", "has an invalid port"),
    ("llm", "openai:http://h/v1?model=m&api_key_env=not-a-name",
     "option api_key_env: 'not-a-name' is not an environment variable name"),
    ("extractor", "radgraph:/m?model_type=echograph", "RADREVIEW_EXTRACTOR: option model_type"),
    ("generator", "transformers:/m?trust_remote_code=maybe",
     "option trust_remote_code: expected true or false"),
    ("llm", "builtin:/m", "'builtin' takes no location or options"),
])
def test_parse_errors_name_the_setting(role, text, expected):
    with pytest.raises(BackendConfigError) as caught:
        parse_spec(role, text)
    assert expected in str(caught.value)


def test_missing_folder_names_setting_and_path(tmp_path):
    missing = tmp_path / "biomedclip"
    with pytest.raises(BackendConfigError,
                       match=f"^RADREVIEW_IMAGE_ENCODER: folder {missing} does not exist$"):
        configure({"image_encoder": f"open_clip:{missing}"})


def test_open_clip_folder_without_config_or_weights(tmp_path):
    with pytest.raises(BackendConfigError) as caught:
        configure({"image_encoder": f"open_clip:{tmp_path}"})
    message = str(caught.value)
    assert f"RADREVIEW_IMAGE_ENCODER: folder {tmp_path} has no open_clip_config.json" in message
    assert "has no weights (open_clip_model.safetensors" in message


def test_open_clip_config_without_model_cfg(tmp_path):
    (tmp_path / "open_clip_config.json").write_text('{"preprocess_cfg": {}}')
    (tmp_path / "open_clip_pytorch_model.bin").write_bytes(b"")
    with pytest.raises(BackendConfigError, match="has no 'model_cfg' object"):
        configure({"image_encoder": f"open_clip:{tmp_path}"})


def test_valid_open_clip_folder_passes(tiny_clip_dir):
    specs = configure({"image_encoder": f"open_clip:{tiny_clip_dir}"})
    assert specs["image_encoder"].kind == "open_clip"


def test_transformers_llm_folder_checks(tmp_path):
    folder = make_transformers_folder(tmp_path / "llm", chat_template=False, weights=False)
    with pytest.raises(BackendConfigError) as caught:
        configure({"llm": f"transformers:{folder}"})
    message = str(caught.value)
    assert "RADREVIEW_LLM: folder" in message
    assert "has no weights" in message
    assert "has no chat template" in message


def test_transformers_generator_needs_a_processor(tmp_path):
    folder = make_transformers_folder(tmp_path / "vlm", processor=False)
    with pytest.raises(BackendConfigError,
                       match="RADREVIEW_GENERATOR: folder .* has no image processor"):
        configure({"generator": f"transformers:{folder}"})
    (folder / "preprocessor_config.json").write_text("{}")
    configure({"generator": f"transformers:{folder}"})


def test_sentence_transformers_folder_checks(tmp_path):
    with pytest.raises(BackendConfigError,
                       match="RADREVIEW_TEXT_EMBEDDER: folder .* has no modules.json"):
        configure({"text_embedder": f"sentence-transformers:{tmp_path}"})


def test_api_key_variable_must_be_set():
    spec = {"llm": "openai:http://h:8000/v1?model=m&api_key_env=RR_TEST_KEY"}
    with pytest.raises(BackendConfigError, match="RADREVIEW_LLM: api_key_env=RR_TEST_KEY but "
                                                 "the environment variable RR_TEST_KEY is not"):
        configure(spec, environ={})
    configure(spec, environ={"RR_TEST_KEY": "k"})


def test_all_roles_are_checked_and_every_problem_reported(tmp_path):
    with pytest.raises(BackendConfigError) as caught:
        configure({"llm": "openai:ftp://x?model=m",
                   "generator": "telepathy:/x",
                   "image_encoder": f"open_clip:{tmp_path / 'nope'}",
                   "extractor": f"radgraph:{tmp_path / 'radgraph'}"})
    message = str(caught.value)
    assert message.startswith("4 model backend settings are invalid")
    for setting in ("RADREVIEW_LLM", "RADREVIEW_GENERATOR", "RADREVIEW_IMAGE_ENCODER",
                    "RADREVIEW_EXTRACTOR"):
        assert setting in message
    assert f"RADREVIEW_EXTRACTOR: folder {tmp_path / 'radgraph'} does not exist" in message


def test_unknown_role_is_refused():
    with pytest.raises(BackendConfigError, match="unknown model role"):
        validate_specs({"llm": "builtin", "reranker": "builtin"})


def test_missing_roles_default_to_builtin():
    specs = validate_specs({})
    assert {spec.kind for spec in specs.values()} == {"builtin"}


def test_specs_from_environ():
    specs = specs_from_environ({"RADREVIEW_LLM": "openai:http://h/v1?model=m"})
    assert specs["llm"] == "openai:http://h/v1?model=m"
    assert specs["extractor"] == "builtin"
