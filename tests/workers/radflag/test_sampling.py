"""The sample stage through the real generator backends: a tiny LLaVA built and saved here (so
loading, prompting and temperature sampling really run, on CPU), an OpenAI-compatible HTTP
server, and the built-in retrieval generator's absence or failure."""
from __future__ import annotations

import sys
import types

import pytest

from tests.support import dicom_factory as dicom
from tests.support import tiny_models as tiny
from tests.support.fake_llm_server import FakeServer, Reply, completion
from tests.workers.imagememory.library_factory import reference_library, text_embedder  # noqa: F401
from workers.backends import registry
from workers.pipeline import StageError
from workers.radflag.stages import (
    ALTERNATIVES,
    NO_GENERATOR,
    ImageForSampling,
    SampleInputs,
    sample,
)


@pytest.fixture(scope="module")
def tiny_vlm_dir(tmp_path_factory):
    return tiny.build_vlm(tmp_path_factory.mktemp("models") / "tiny-llava")


@pytest.fixture
def images(tmp_path) -> tuple[ImageForSampling, ...]:
    pa = tmp_path / "pa.dcm"
    pa.write_bytes(dicom.make_dicom(rows=64, cols=64, view="PA"))
    lateral = tmp_path / "lateral.png"
    lateral.write_bytes(dicom.make_png())
    return (
        ImageForSampling(str(pa), "dicom", "PA"),
        ImageForSampling(str(lateral), "png", "LATERAL"),
    )


def inputs(images, **overrides) -> SampleInputs:
    settings = dict(images=images, need_candidate=True, n=4, temperature=1.0,
                    candidate_temperature=0.1, max_tokens=8, index_dir="/nonexistent")
    settings.update(overrides)
    return SampleInputs(**settings)


def test_tiny_vlm_drafts_the_candidate_and_the_samples_in_one_batched_call(
    tiny_vlm_dir, images, monkeypatch
):
    registry.configure(
        {"generator": f"transformers:{tiny_vlm_dir}?device={tiny.DEVICE}&max_new_tokens=12"}
    )
    model = registry.generator()
    calls = []
    original = model.model.generate

    def counting(*args, **kwargs):
        calls.append(kwargs["generation_config"])
        return original(*args, **kwargs)

    monkeypatch.setattr(model.model, "generate", counting)
    progress = []
    result = sample(inputs(images), lambda fraction, note="": progress.append(fraction),
                    generator=model)
    assert result.source == "tiny-llava" and not result.skipped
    assert (
        result.candidate is not None
        and result.candidate.text
        and result.candidate.temperature == 0.1
    )
    assert [s.sample_index for s in result.samples] == [0, 1, 2, 3]
    assert all(s.temperature == 1.0 and isinstance(s.text, str) for s in result.samples)
    assert len(calls) == 2  # one call for the candidate, one for all n samples
    assert calls[0].temperature == 0.1 and calls[0].num_return_sequences == 1
    assert calls[1].num_return_sequences == 4 and calls[1].do_sample and calls[1].temperature == 1.0
    assert progress[-1] == 1.0


def test_with_an_uploaded_report_only_the_samples_are_drafted(tiny_vlm_dir, images):
    registry.configure({"generator": f"transformers:{tiny_vlm_dir}?device={tiny.DEVICE}"})
    result = sample(inputs(images, need_candidate=False, n=3), generator=registry.generator())
    assert result.candidate is None and len(result.samples) == 3


def test_openai_compatible_server_gets_the_images_and_n_in_one_request(images):
    def script(body):
        texts = [f"FINDINGS: Sample {i} at {body['temperature']}." for i in range(body["n"])]
        return Reply(body=completion(*texts))

    with FakeServer() as server:
        server.script = script
        registry.configure({"generator": f"openai:{server.url}?model=cxr-gen&retries=0"})
        result = sample(inputs(images, n=10), generator=registry.generator())
    assert result.source == "cxr-gen"
    assert result.candidate.text == "FINDINGS: Sample 0 at 0.1."
    assert [s.text for s in result.samples] == [f"FINDINGS: Sample {i} at 1.0." for i in range(10)]
    candidate_request, samples_request = (r["body"] for r in server.requests)
    assert (candidate_request["n"], candidate_request["temperature"]) == (1, 0.1)
    assert (samples_request["n"], samples_request["temperature"]) == (10, 1.0)
    content = samples_request["messages"][0]["content"]
    pictures = [part for part in content if part["type"] == "image_url"]
    assert len(pictures) == 2 and pictures[0]["image_url"]["url"].startswith(
        "data:image/png;base64,"
    )
    assert any("View: PA" in part.get("text", "") for part in content)


def test_a_server_returning_fewer_choices_is_topped_up_to_n(images):
    with FakeServer() as server:
        server.script = lambda body: Reply(
            body=completion(*["FINDINGS: Clear."] * min(body["n"], 2))
        )
        registry.configure({"generator": f"openai:{server.url}?model=cxr-gen&retries=0"})
        # The backend tops a short reply up with single requests; each of those returns one.
        result = sample(inputs(images, n=5), generator=registry.generator())
    assert len(result.samples) == 5


def test_without_any_generator_an_image_study_without_a_report_fails_plainly(images, monkeypatch):
    monkeypatch.setitem(sys.modules, "workers.rarrg.generator", None)  # the built-in one absent
    with pytest.raises(StageError) as failed:
        sample(inputs(images))
    assert failed.value.message == NO_GENERATOR
    assert "RADREVIEW_GENERATOR" in NO_GENERATOR


def test_without_any_generator_a_study_with_a_report_skips_radflag(images, monkeypatch):
    monkeypatch.setitem(sys.modules, "workers.rarrg.generator", None)
    result = sample(inputs(images, need_candidate=False))
    assert result.samples == () and result.candidate is None
    assert result.skipped.startswith("RadFlag skipped: No report generator is available")


def test_the_builtin_retrieval_generator_is_called_with_the_index_dir(images, monkeypatch):
    seen = {}

    class Memory:
        name = "built-in retrieval generator"

        def generate(self, images, prompt, *, temperature, n, max_tokens=256):
            return [f"FINDINGS: neighbour {i} at {temperature}." for i in range(n)]

    def load_builtin_generator(index_dir, encoder=None):
        seen["index_dir"] = index_dir
        if not index_dir.name:
            raise StageError("The image memory is empty: import a reference library first.")
        return Memory()

    module = types.ModuleType("workers.rarrg.generator")
    module.load_builtin_generator = load_builtin_generator
    monkeypatch.setitem(sys.modules, "workers.rarrg.generator", module)
    result = sample(inputs(images, index_dir="/data/indexes"))
    assert str(seen["index_dir"]) == "/data/indexes"
    assert result.source == "built-in retrieval generator" and len(result.samples) == 4
    with pytest.raises(StageError, match="image memory is empty"):
        sample(inputs(images, index_dir=""))


def test_a_generator_returning_the_wrong_number_of_samples_fails_plainly(images, monkeypatch):
    class Short:
        name = "short-gen"

        def generate(self, images, prompt, *, temperature, n, max_tokens=256):
            return ["FINDINGS: Clear."] * (n - 1 if n > 1 else 1)

    module = types.ModuleType("workers.rarrg.generator")
    module.load_builtin_generator = lambda index_dir, encoder=None: Short()
    monkeypatch.setitem(sys.modules, "workers.rarrg.generator", module)
    with pytest.raises(StageError, match="short-gen returned 3 samples; 4 were asked for"):
        sample(inputs(images))


def test_the_builtin_retrieval_generator_drafts_from_the_image_memory(reference_library):  # noqa: F811
    studies, index_dir = reference_library
    images = tuple(
        ImageForSampling(image.path, image.kind, image.view) for image in studies[1].images
    )
    result = sample(inputs(images, index_dir=str(index_dir), n=10))
    assert result.source == "builtin-retrieval-generator"
    assert result.candidate.text.startswith("FINDINGS: ") and result.candidate.temperature == 0.1
    assert len(result.samples) == 10 and all(
        s.text.startswith("FINDINGS: ") for s in result.samples
    )
    assert len({s.text for s in result.samples}) > 1  # temperature 1.0 varies the samples


def test_an_empty_image_memory_fails_an_image_only_study_and_says_what_else_to_do(images, tmp_path):
    with pytest.raises(StageError) as failed:
        sample(inputs(images, index_dir=str(tmp_path / "indexes")))
    assert failed.value.message.startswith("The image memory is empty")
    assert failed.value.message.endswith(ALTERNATIVES)
    skipped = sample(inputs(images, index_dir=str(tmp_path / "indexes"), need_candidate=False))
    assert skipped.skipped.startswith("RadFlag skipped: The image memory is empty")
