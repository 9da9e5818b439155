"""A small synthetic reference library for the image tests: chest phantoms with reports.

Each reference study has a frontal phantom (its own seed) and, when asked, a lateral one; the
reports differ in their findings, so retrieval, probing and composition have something to
tell apart. Files are written as DICOM (pydicom) or PNG into a folder; ``build_memory`` embeds
them with the built-in descriptor into an image memory without any database.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.support import dicom_factory as dicom
from workers.imagememory import ImageMemory, LibraryImage, LibraryStudy, add_to_memory

REPORTS = [
    "FINDINGS: The heart is normal in size. The lungs are clear. No pleural effusion or "
    "pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality.",
    "FINDINGS: Small left pleural effusion. Heart size is normal. No pneumothorax.\n"
    "IMPRESSION: Small left pleural effusion.",
    "FINDINGS: Moderate cardiomegaly. Mild pulmonary edema. Small bilateral pleural effusions.\n"
    "IMPRESSION: Cardiomegaly with mild edema and small effusions.",
    "FINDINGS: Right lower lobe consolidation. Heart size is normal. No pleural effusion.\n"
    "IMPRESSION: Right lower lobe pneumonia.",
    "FINDINGS: Endotracheal tube in place. Left lower lobe atelectasis. No pneumothorax.\n"
    "IMPRESSION: Left lower lobe atelectasis.",
    "FINDINGS: Large right pneumothorax. Heart size is normal.\nIMPRESSION: Large right "
    "pneumothorax.",
    "FINDINGS: Heart size is normal. Lungs are clear. Degenerative changes of the thoracic "
    "spine.\nIMPRESSION: No acute cardiopulmonary abnormality.",
    "FINDINGS: Mild cardiomegaly. Lungs are clear. No pleural effusion.\nIMPRESSION: Mild "
    "cardiomegaly.",
    "FINDINGS: Calcified granuloma in the right upper lobe. Heart size is normal. No pleural "
    "effusion or pneumothorax.\nIMPRESSION: No acute disease.",
    "FINDINGS: Right pleural effusion, unchanged from the prior study. Heart size is normal.\n"
    "IMPRESSION: Stable right pleural effusion.",
]


def phantom(seed: int, lateral: bool = False, size: int = 192) -> np.ndarray:
    density = dicom.chest_phantom(seed=seed, rows=size, cols=size)
    if lateral:
        # A lateral view: a different arrangement of densities than any frontal one.
        density = np.ascontiguousarray(np.rot90(density) * 0.8 + 0.1)
    return density


def write_study_files(folder: Path, seed: int, *, lateral: bool = False, fmt: str = "dicom",
                      size: int = 192) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    views = [("PA", False)] + ([("LATERAL", True)] if lateral else [])
    for view, is_lateral in views:
        density = phantom(seed, is_lateral, size)
        if fmt == "dicom":
            path = folder / f"{view.lower()}.dcm"
            path.write_bytes(dicom.make_dicom(density=density, view=view, rows=size, cols=size))
        else:
            path = folder / f"{view.lower()}.png"
            path.write_bytes(dicom.make_png(density))
        paths.append(path)
    return paths


def write_library(root: Path, n: int = len(REPORTS), *, lateral: bool = False,
                  fmt: str = "dicom", seed_offset: int = 100) -> list[LibraryStudy]:
    """Files under ``root/<study>/`` and the LibraryStudy records (ids 1..n)."""
    studies = []
    image_id = 0
    for index in range(n):
        external = f"ref-{index + 1}"
        paths = write_study_files(root / external, seed_offset + index, lateral=lateral,
                                  fmt=fmt)
        images = []
        for path in paths:
            image_id += 1
            images.append(LibraryImage(image_id, str(path), "dicom" if fmt == "dicom" else "png",
                                       "LATERAL" if "lateral" in path.name else "PA"))
        studies.append(LibraryStudy(index + 1, external, "test", REPORTS[index % len(REPORTS)],
                                    tuple(images)))
    return studies


def build_memory(directory: Path, studies: list[LibraryStudy], *, encoder=None, embedder=None,
                 **options) -> ImageMemory:
    from workers.backends.builtin import AppearanceDescriptorEncoder

    memory = ImageMemory(directory, **options)
    add_to_memory(memory, studies, encoder=encoder or AppearanceDescriptorEncoder(),
                  embedder=embedder)
    memory.save()
    return memory


# --- fixtures (imported by the conftest of each image test package) ---------------------------
# The conftests of several packages import these fixtures, which pytest then keeps apart; the
# cached builders below make the library and the embedder once per test process anyway.

import atexit  # noqa: E402
import functools  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

import pytest  # noqa: E402


@functools.cache
def shared_text_embedder():
    from workers.backends.sentence_embedder import (
        BUILTIN_EMBEDDER_NAME,
        SentenceTransformerEmbedder,
        builtin_model_path,
    )

    return SentenceTransformerEmbedder(builtin_model_path(), setting="test", device="cpu",
                                       name=BUILTIN_EMBEDDER_NAME)


@functools.cache
def shared_library() -> tuple[tuple[LibraryStudy, ...], Path]:
    root = Path(tempfile.mkdtemp(prefix="radreview-reference-library-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    studies = write_library(root / "files", lateral=True)
    build_memory(root / "indexes" / "image_memory", studies, embedder=shared_text_embedder())
    return tuple(studies), root / "indexes"


@pytest.fixture
def text_embedder():
    """The packaged all-MiniLM-L6-v2, loaded once per test process."""
    return shared_text_embedder()


@pytest.fixture
def reference_library():
    """(studies, index_dir): the ten reference studies, frontal + lateral DICOM files, in a
    memory built with the built-in descriptor and the packaged MiniLM embedder. Shared:
    tests must not change it (copy it first)."""
    return shared_library()
