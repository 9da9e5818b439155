"""The image memory: reference images embedded in a persisted FAISS index with their studies'
reports, key phrases (phrases.py, RA-RRG's) and disease entities (entities.py, V-RAG's),
and how a study uses it (access.py). Plain Python, no Django (docs/images.md).

    memory = ImageMemory.open(memory_dir(settings.INDEX_DIR))   # or cached_memory(...)
    memory.check_encoder(registry.image_encoder())               # refuses a different encoder
    neighbours = memory.search(vectors, k=5)                      # per query: [Neighbour, ...]
"""
from .build import LibraryImage, LibraryStudy, add_to_memory, describe_study, refresh_phrase_bank
from .memory import (
                     MEMORY_SUBDIR,
                     REBUILD_HINT,
                     EncoderInfo,
                     EncoderMismatch,
                     ImageMemory,
                     ImageMemoryError,
                     MemoryCorrupt,
                     MemoryImage,
                     MemoryStudy,
                     Neighbour,
                     cached_memory,
                     memory_dir,
                     memory_lock,
                     read_summary,
)
from .query import QueryImage, embed, load_pixels, resolve

__all__ = [
    "MEMORY_SUBDIR", "REBUILD_HINT", "EncoderInfo", "EncoderMismatch", "ImageMemory",
    "ImageMemoryError", "LibraryImage", "LibraryStudy", "MemoryCorrupt", "MemoryImage",
    "MemoryStudy", "Neighbour", "QueryImage", "add_to_memory", "cached_memory",
    "describe_study", "embed", "load_pixels", "memory_dir", "memory_lock",
    "read_summary", "refresh_phrase_bank", "resolve",
]
