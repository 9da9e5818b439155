"""Fixtures for the backend tests: offline hubs, a clean registry, tiny model folders."""
from __future__ import annotations

import os

# Set before transformers / huggingface_hub are imported: nothing may reach a hub.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402

from tests.support import tiny_models as tiny  # noqa: E402
from workers.backends import registry  # noqa: E402


@pytest.fixture(autouse=True)
def clean_registry():
    registry.reset()
    yield
    registry.reset()


@pytest.fixture(scope="session")
def tiny_llm_dir(tmp_path_factory):
    return tiny.build_llm(tmp_path_factory.mktemp("models") / "tiny-llama")


@pytest.fixture(scope="session")
def tiny_vlm_dir(tmp_path_factory):
    return tiny.build_vlm(tmp_path_factory.mktemp("models") / "tiny-llava")


@pytest.fixture(scope="session")
def tiny_clip_dir(tmp_path_factory):
    return tiny.build_biomedclip_like(tmp_path_factory.mktemp("models") / "tiny-biomedclip")
