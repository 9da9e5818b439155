"""Fixtures for the RadFlag tests: offline hubs and a registry restored after each test."""
from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import pytest  # noqa: E402

from workers.backends import registry  # noqa: E402


@pytest.fixture(autouse=True)
def builtin_roles_afterwards():
    """Every test leaves the roles as it found them: built-in (from the environment)."""
    registry.reset()
    yield
    registry.reset()
