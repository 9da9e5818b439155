"""Fixtures shared by the image tests (see tests/workers/imagememory/library_factory.py)."""
from tests.workers.imagememory.library_factory import reference_library, text_embedder  # noqa: F401
