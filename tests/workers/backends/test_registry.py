"""The registry: nothing loads at configure time; each role loads once per process and is reused."""
from __future__ import annotations

import threading
import time

import pytest

from workers.backends import BackendLoadError, registry


class Counting:
    """A stand-in factory that records how often a backend was built."""

    def __init__(self, delay: float = 0.0, fail: Exception | None = None) -> None:
        self.calls = 0
        self.delay = delay
        self.fail = fail
        self._lock = threading.Lock()

    def __call__(self, spec):
        with self._lock:
            self.calls += 1
        time.sleep(self.delay)
        if self.fail is not None:
            raise self.fail

        class Backend:
            name = f"stub-{spec.role}"
            learned = True
            dim = 3

        return Backend()


@pytest.fixture
def counting_llm(monkeypatch):
    factory = Counting(delay=0.2)
    monkeypatch.setitem(registry.FACTORIES, ("llm", "transformers"), factory)
    return factory


def test_configure_loads_nothing(monkeypatch, tiny_llm_dir, tiny_vlm_dir, tiny_clip_dir):
    factories = {key: Counting() for key in registry.FACTORIES}
    for key, factory in factories.items():
        monkeypatch.setitem(registry.FACTORIES, key, factory)
    registry.configure({
        "llm": f"transformers:{tiny_llm_dir}?device=cpu",
        "generator": f"transformers:{tiny_vlm_dir}?device=cpu",
        "image_encoder": f"open_clip:{tiny_clip_dir}",
    })
    assert all(factory.calls == 0 for factory in factories.values())
    statuses = registry.describe()
    assert [status.role for status in statuses] == ["llm", "generator", "text_embedder",
                                                   "image_encoder", "extractor"]
    assert not any(status.loaded for status in statuses)
    llm = statuses[0]
    assert (llm.setting, llm.kind, llm.model) == ("RADREVIEW_LLM", "transformers", "tiny-llama")
    assert llm.location == str(tiny_llm_dir)
    assert statuses[3].learned is True


def test_one_instance_per_process_even_under_concurrent_first_use(counting_llm, tiny_llm_dir):
    registry.configure({"llm": f"transformers:{tiny_llm_dir}"})
    results = []
    threads = [threading.Thread(target=lambda: results.append(registry.llm())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counting_llm.calls == 1
    assert len({id(result) for result in results}) == 1
    assert registry.llm() is results[0]
    status = registry.describe()[0]
    assert status.loaded and status.model == "stub-llm" and status.load_seconds >= 0.2


def test_builtin_llm_and_generator_are_none():
    registry.configure({})
    assert registry.llm() is None
    assert registry.generator() is None
    assert registry.describe()[0].loaded


def test_first_use_without_configure_reads_the_environment(monkeypatch, counting_llm,
                                                           tiny_llm_dir):
    monkeypatch.setenv("RADREVIEW_LLM", f"transformers:{tiny_llm_dir}")
    assert not registry.is_configured()
    assert registry.llm().name == "stub-llm"
    assert registry.is_configured()


def test_same_settings_keep_loaded_backends_and_new_settings_drop_them(counting_llm,
                                                                       tiny_llm_dir):
    settings = {"llm": f"transformers:{tiny_llm_dir}"}
    registry.configure(settings)
    first = registry.llm()
    registry.configure(dict(settings))
    assert registry.llm() is first and counting_llm.calls == 1
    registry.configure({"llm": f"transformers:{tiny_llm_dir}?max_new_tokens=5"})
    assert registry.llm() is not first and counting_llm.calls == 2


def test_failed_load_is_remembered_until_probe_retries(monkeypatch, tiny_llm_dir):
    factory = Counting(fail=RuntimeError("CUDA out of memory"))
    monkeypatch.setitem(registry.FACTORIES, ("llm", "transformers"), factory)
    registry.configure({"llm": f"transformers:{tiny_llm_dir}"})
    with pytest.raises(BackendLoadError) as caught:
        registry.llm()
    assert str(caught.value).startswith("RADREVIEW_LLM: loading transformers from")
    assert "CUDA out of memory" in str(caught.value)
    with pytest.raises(BackendLoadError):
        registry.llm()
    assert factory.calls == 1
    assert "CUDA out of memory" in registry.describe()[0].load_error

    result = registry.probe("llm")
    assert factory.calls == 2
    assert not result.ok and "CUDA out of memory" in result.error


def test_forked_child_starts_with_nothing_loaded(counting_llm, tiny_llm_dir):
    registry.configure({"llm": f"transformers:{tiny_llm_dir}"})
    parent_instance = registry.llm()
    registry._after_fork_in_child()  # what os.register_at_fork runs in a child
    assert not registry.describe()[0].loaded
    assert registry.llm() is not parent_instance


def test_probe_builtin_roles(monkeypatch):
    registry.configure({})
    llm = registry.probe("llm")
    assert llm.ok and "3 sentences" in llm.detail
    # Without the Django app, nothing says where the image memory is (tests/workers/rarrg
    # probes the built-in generator over a real one).
    monkeypatch.setattr(registry, "_builtin_generator_loader", None)
    generator = registry.probe("generator")
    assert generator.ok and "not checked" in generator.detail
    embedder = registry.probe("text_embedder")
    assert embedder.ok and "384-d" in embedder.detail and embedder.latency_s > 0
    encoder = registry.probe("image_encoder")
    assert encoder.ok and "512-d" in encoder.detail and "no learned weights" in encoder.detail


def test_probe_reports_a_failing_request(monkeypatch, tiny_llm_dir):
    class Broken:
        name = "broken"

        def complete(self, *args, **kwargs):
            raise ConnectionError("refused")

    monkeypatch.setitem(registry.FACTORIES, ("llm", "transformers"), lambda spec: Broken())
    registry.configure({"llm": f"transformers:{tiny_llm_dir}"})
    result = registry.probe("llm")
    assert not result.ok
    assert result.error == "ConnectionError: refused"
    assert "test request failed" in result.detail


def test_unknown_role():
    with pytest.raises(KeyError, match="unknown model role"):
        registry.get("reranker")
