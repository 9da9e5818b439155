"""The transformers vision-language generator on a tiny LLaVA, through its real code on CPU."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.support import tiny_models as tiny
from workers.backends import ImageInput, registry
from workers.backends.spec import parse_spec
from workers.backends.transformers_vlm import TransformersGenerator
from workers.prompts import get_prompt


def study(seed: int = 0) -> list[ImageInput]:
    rng = np.random.default_rng(seed)
    return [ImageInput(rng.random((48, 40), dtype=np.float32), "PA"),
            ImageInput(rng.random((40, 52), dtype=np.float32), "LATERAL")]


@pytest.fixture(scope="module")
def generator(tiny_vlm_dir):
    return TransformersGenerator(parse_spec(
        "generator", f"transformers:{tiny_vlm_dir}?device={tiny.DEVICE}&max_new_tokens=10"))


def test_loads_through_the_registry(tiny_vlm_dir):
    registry.configure({"generator": f"transformers:{tiny_vlm_dir}"})
    model = registry.generator()
    assert isinstance(model, TransformersGenerator)
    assert model.name == "tiny-llava"
    assert model.device == ("cuda" if torch.cuda.is_available() else "cpu")
    assert type(model.model).__name__ == "LlavaForConditionalGeneration"


def test_n_samples_at_temperature_in_one_call(generator, monkeypatch):
    calls = []
    original = generator.model.generate

    def counting_generate(*args, **kwargs):
        calls.append(kwargs["generation_config"])
        return original(*args, **kwargs)

    monkeypatch.setattr(generator.model, "generate", counting_generate)
    torch.manual_seed(0)
    prompt = get_prompt("report_generation").text()
    reports = generator.generate(study(), prompt, temperature=1.0, n=5, max_tokens=8)
    assert len(reports) == 5 and all(isinstance(report, str) for report in reports)
    assert len(set(reports)) > 1
    assert len(calls) == 1
    config = calls[0]
    assert config.num_return_sequences == 5 and config.do_sample and config.temperature == 1.0
    assert config.top_k == 0  # plain temperature sampling, no hidden top-k


def test_greedy_is_deterministic_and_repeated_n_times(generator):
    prompt = get_prompt("report_generation").text()
    first = generator.generate(study(), prompt, temperature=0.0, n=3, max_tokens=8)
    again = generator.generate(study(), prompt, temperature=0.0, n=1, max_tokens=8)
    assert len(first) == 3 and len(set(first)) == 1
    assert again == first[:1]
    assert first[0].strip()


def test_each_view_is_labelled_and_placed_before_the_instruction(generator):
    from workers.backends.images import study_content
    from workers.backends.transformers_llm import render_chat

    content = study_content(study(), "write the report .", lambda _: {"type": "image"})
    text = render_chat(generator.processor, [{"role": "user", "content": content}])
    assert text.index("View: PA") < text.index("<image>") < text.index("View: LATERAL")
    assert text.rstrip().endswith("<|assistant|>")
    assert text.count("<image>") == 2


def test_single_image_and_argument_checks(generator):
    one = [ImageInput(np.full((30, 30), 0.5, dtype=np.float32), "AP")]
    assert len(generator.generate(one, "write the report .", temperature=0.7, n=2,
                                  max_tokens=4)) == 2
    with pytest.raises(ValueError, match="at least one image"):
        generator.generate([], "x", temperature=0.0, n=1)
    with pytest.raises(ValueError, match="n must be at least 1"):
        generator.generate(one, "x", temperature=0.0, n=0)


def test_image_input_validation():
    with pytest.raises(ValueError, match="2-D grayscale"):
        ImageInput(np.zeros((4, 4, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="float"):
        ImageInput(np.zeros((4, 4), dtype=np.uint8))
    clipped = ImageInput(np.array([[-1.0, 2.0]], dtype=np.float64))
    assert clipped.pixels.dtype == np.float32 and clipped.pixels.tolist() == [[0.0, 1.0]]
