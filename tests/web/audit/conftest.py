"""The audit's web tests run the text embedder as a small deterministic stand-in (no model to
load) and start from an empty reference library cache."""
import pytest

from radreview.library import text_library
from tests.workers.library.fakes import HashEmbedder


@pytest.fixture
def embedder(monkeypatch, settings, tmp_path):
    from workers.backends import registry

    fake = HashEmbedder()
    monkeypatch.setattr(registry, "text_embedder", lambda: fake)
    settings.INDEX_DIR = tmp_path / "indexes"
    text_library.forget_cached_library()
    yield fake
    text_library.forget_cached_library()
