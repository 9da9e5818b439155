"""The transformers causal-LM backend, run through its real loading and generation code on CPU."""
from __future__ import annotations

import pytest
import torch

from tests.support import tiny_models as tiny
from workers.backends import BackendLoadError, registry
from workers.backends.devices import resolve_device, resolve_dtype
from workers.backends.spec import parse_spec
from workers.backends.transformers_llm import TransformersTextModel

QUESTION = [{"role": "system", "content": "reply with json"},
            {"role": "user", "content": "there is a small left pleural effusion ."}]
OTHERS = [
    [{"role": "user", "content": "no pneumothorax ."}],
    [{"role": "user", "content": "the heart size is normal . lungs are clear . no focal "
                                 "consolidation . mild right basilar atelectasis ."}],
]


@pytest.fixture(scope="module")
def model(tiny_llm_dir):
    return TransformersTextModel(parse_spec(
        "llm", f"transformers:{tiny_llm_dir}?device={tiny.DEVICE}&max_new_tokens=12&batch_size=4"))


def test_loads_through_the_registry_with_automatic_device_and_dtype(tiny_llm_dir):
    registry.configure({"llm": f"transformers:{tiny_llm_dir}"})
    model = registry.llm()
    assert isinstance(model, TransformersTextModel)
    assert model.name == "tiny-llama"
    if torch.cuda.is_available():
        assert model.device == "cuda"
        assert model.model.dtype in (torch.bfloat16, torch.float16)
    else:
        assert model.device == "cpu" and model.model.dtype == torch.float32
    assert next(model.model.parameters()).device.type == model.device.split(":")[0]
    assert model.tokenizer.padding_side == "left"
    assert registry.llm() is model


def test_greedy_is_deterministic_and_nonempty(model):
    first = model.complete(QUESTION, temperature=0.0, max_tokens=8)
    second = model.complete(QUESTION, temperature=0.0, max_tokens=8)
    assert first == second
    assert first.strip()


def test_max_tokens_is_capped_by_the_spec(model):
    reply = model.complete(QUESTION, temperature=0.0, max_tokens=500)
    assert 0 < len(model.tokenizer(reply, add_special_tokens=False)["input_ids"]) <= 12
    short = model.complete(QUESTION, temperature=0.0, max_tokens=2)
    assert len(model.tokenizer(short, add_special_tokens=False)["input_ids"]) <= 2


def test_temperature_sampling_varies(model):
    torch.manual_seed(1)
    replies = model.complete_many([QUESTION] * 6, temperature=1.5, max_tokens=8)
    assert len(replies) == 6
    assert len(set(replies)) > 1


def test_left_padded_batches_match_one_by_one_greedy(model):
    conversations = [QUESTION, *OTHERS]
    batched = model.complete_many(conversations, temperature=0.0, max_tokens=8)
    single = [model.complete(messages, temperature=0.0, max_tokens=8)
              for messages in conversations]
    assert batched == single


def test_batches_are_split_by_batch_size(tiny_llm_dir):
    model = TransformersTextModel(parse_spec("llm", f"transformers:{tiny_llm_dir}"
                                                    f"?device={tiny.DEVICE}&batch_size=1"))
    conversations = [QUESTION, *OTHERS]
    assert model.complete_many(conversations, max_tokens=6) == [
        model.complete(messages, max_tokens=6) for messages in conversations]
    assert model.complete_many([]) == []


def test_template_without_a_system_turn(tmp_path):
    folder = tiny.build_llm(tmp_path / "no-system", chat_template=tiny.NO_SYSTEM_TEMPLATE)
    model = TransformersTextModel(parse_spec("llm", f"transformers:{folder}?device={tiny.DEVICE}"))
    text = model._prompt_text(QUESTION)
    assert "<|system|>" not in text
    assert text.startswith("<|user|> reply with json")
    assert model.complete(QUESTION, max_tokens=4)


def test_dtype_auto_is_float32_on_cpu():
    assert resolve_dtype("auto", "cpu") == torch.float32
    assert resolve_dtype("bfloat16", "cpu") == torch.bfloat16


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU message")
def test_cuda_requested_without_a_gpu_fails_at_load_with_the_setting(tiny_llm_dir):
    assert resolve_device("auto", "RADREVIEW_LLM") == "cpu"
    registry.configure({"llm": f"transformers:{tiny_llm_dir}?device=cuda"})
    with pytest.raises(BackendLoadError, match="RADREVIEW_LLM: device=cuda but no CUDA device"):
        registry.llm()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_cuda_bfloat16_when_a_gpu_is_present(tiny_llm_dir):
    model = TransformersTextModel(parse_spec("llm", f"transformers:{tiny_llm_dir}?device=cuda"))
    assert model.device == "cuda"
    expected = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    assert model.model.dtype == expected
    assert model.complete(QUESTION, max_tokens=4) == model.complete(QUESTION, max_tokens=4)
    assert len(model.complete_many([QUESTION, *OTHERS], temperature=1.0, max_tokens=4)) == 3
