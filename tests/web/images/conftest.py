"""Fixtures of the image web tests: a fresh image memory folder and built-in roles per test."""
from __future__ import annotations

import pytest

from workers.backends import registry


@pytest.fixture(autouse=True)
def index_dir(settings, tmp_path):
    settings.INDEX_DIR = tmp_path / "indexes"
    settings.RARRG_RETRIEVER_CHECKPOINT = settings.INDEX_DIR / "phrase_retriever.pt"
    settings.LIBRARY_IMPORT_ROOT = tmp_path / "import"
    return settings.INDEX_DIR


@pytest.fixture(autouse=True)
def builtin_roles():
    """Built-in roles; kept loaded from test to test (configuring the same settings again keeps
    what is loaded), and put back after a test that switched a role."""
    registry.configure({})
    yield
    registry.configure({})
