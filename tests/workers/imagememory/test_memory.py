"""The image memory: retrieval of altered copies, persistence, increments, HNSW, encoders."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from tests.support import dicom_factory as dicom
from tests.support import image_alterations as alt
from tests.support import tiny_models as tiny
from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory import (
    EncoderMismatch,
    ImageMemory,
    MemoryCorrupt,
    MemoryImage,
    MemoryStudy,
    QueryImage,
    add_to_memory,
    cached_memory,
    load_pixels,
    memory_dir,
)
from workers.retrieval.index import HnswParams

from .library_factory import build_memory, phantom, write_library

ALTERATIONS = {
    "brightness": alt.brightness_contrast,
    "noise": lambda x: alt.noise(x, 0.03),
    "shift": lambda x: alt.shift(x, 5, -4),
    "crop": lambda x: alt.crop(x, 0.05),
    "jpeg": alt.jpeg_roundtrip,
}


@pytest.mark.parametrize("name", sorted(ALTERATIONS))
def test_a_slightly_altered_copy_of_a_reference_image_finds_its_source_first(
        reference_library, tmp_path, name):
    studies, index_dir = reference_library
    memory = ImageMemory.open(memory_dir(index_dir))
    encoder = AppearanceDescriptorEncoder()
    for study in studies[:4]:
        source = study.images[0]  # the frontal view, as a DICOM file
        altered = ALTERATIONS[name](load_pixels(source.path))
        path = tmp_path / f"{study.external_id}.dcm"
        path.write_bytes(dicom.make_dicom(density=altered, rows=altered.shape[0],
                                          cols=altered.shape[1]))
        hits = memory.search(encoder.encode([load_pixels(QueryImage(str(path), "dicom"))]),
                             3, per_study=False)[0]
        assert hits[0].image.id == source.id, (name, study.external_id, hits)
        assert hits[0].study.id == study.id and hits[0].study.external_id == study.external_id
        assert hits[0].similarity > hits[1].similarity


def test_every_result_is_traceable_to_its_reference_study_and_image(reference_library):
    studies, index_dir = reference_library
    memory = ImageMemory.open(memory_dir(index_dir))
    lateral = studies[3].images[1]
    hit = memory.search(AppearanceDescriptorEncoder().encode([load_pixels(lateral.path)]), 1)[0][0]
    assert (hit.image.id, hit.image.study_id, hit.image.view) == (lateral.id, 4, "LATERAL")
    row = hit.to_dict()
    assert row["reference_id"] == 4 and row["image_id"] == lateral.id
    assert row["external_id"] == "ref-4" and "consolidation" in row["excerpt"]
    assert memory.studies[4].phrases and "consolidation" in memory.studies[4].entities


def test_one_image_per_study_unless_asked_and_excluded_studies_never_come_back(reference_library):
    studies, index_dir = reference_library
    memory = ImageMemory.open(memory_dir(index_dir))
    query = AppearanceDescriptorEncoder().encode([load_pixels(studies[0].images[0].path)])
    per_study = memory.search(query, 10)[0]
    assert len({h.study.id for h in per_study}) == len(per_study) == 10
    excluded = memory.search(query, 5, exclude_studies={1, 2})[0]
    assert {h.study.id for h in excluded}.isdisjoint({1, 2}) and len(excluded) == 5


def test_saving_writes_a_new_generation_that_readers_see_whole(tmp_path):
    studies = write_library(tmp_path / "files", n=4)
    directory = tmp_path / "image_memory"
    memory = build_memory(directory, studies[:2])
    first = memory.generation
    assert cached_memory(directory).generation == first
    add_to_memory(memory, studies, encoder=AppearanceDescriptorEncoder())
    second = memory.save()
    assert second != first and (directory / "CURRENT").read_text() == second
    reopened = cached_memory(directory)
    assert reopened.generation == second and len(reopened) == 4
    for _ in range(3):
        memory.save()
    generations = sorted(p.name for p in directory.glob("gen-*"))
    assert len(generations) == 2 and generations[-1] == memory.generation
    # An index that disagrees with its manifest is refused, with the way out.
    manifest = directory / memory.generation / "manifest.json"
    data = json.loads(manifest.read_text())
    data["images"] = data["images"][:1]
    manifest.write_text(json.dumps(data))
    with pytest.raises(MemoryCorrupt, match="rebuild_image_index"):
        ImageMemory.open(directory)


def test_imports_are_incremental_and_skip_images_already_there(tmp_path):
    studies = write_library(tmp_path / "files", n=6)
    directory = tmp_path / "image_memory"
    memory = ImageMemory(directory)
    encoder = AppearanceDescriptorEncoder()
    assert add_to_memory(memory, studies[:3], encoder=encoder) == 3
    memory.save()
    memory = ImageMemory.open(directory)
    assert add_to_memory(memory, studies, encoder=encoder) == 3  # only the new ones
    memory.save()
    memory = ImageMemory.open(directory)
    assert sorted(memory.studies) == [1, 2, 3, 4, 5, 6] and len(memory) == 6
    query = encoder.encode([load_pixels(studies[1].images[0].path),
                            load_pixels(studies[4].images[0].path)])
    assert [hits[0].study.id for hits in memory.search(query, 1)] == [2, 5]


def test_a_library_past_the_exact_limit_is_searched_through_hnsw(tmp_path):
    studies = write_library(tmp_path / "files", n=10)
    options = {"hnsw": HnswParams(m=8, ef_construction=40, ef_search=32), "exact_below": 6}
    memory = build_memory(tmp_path / "image_memory", studies, **options)
    assert memory.index_kind == "hnsw"
    reopened = ImageMemory.open(tmp_path / "image_memory", **options)
    assert reopened.index_kind == "hnsw"
    encoder = AppearanceDescriptorEncoder()
    for study in studies:
        pixels = alt.noise(load_pixels(study.images[0].path), 0.02)
        assert reopened.search(encoder.encode([pixels]), 1)[0][0].study.id == study.id


class _OtherEncoder:
    name, dim, learned = "other-encoder", 512, True

    def encode(self, images):
        return np.ones((len(images), 512), np.float32) / np.sqrt(512)


def test_the_memory_refuses_vectors_of_another_encoder(tmp_path):
    studies = write_library(tmp_path / "files", n=2)
    memory = build_memory(tmp_path / "image_memory", studies)
    assert memory.encoder.name == "builtin-appearance-v1" and memory.encoder.learned is False
    with pytest.raises(EncoderMismatch) as refused:
        memory.check_encoder(_OtherEncoder())
    assert "builtin-appearance-v1" in refused.value.message
    assert "other-encoder" in refused.value.message
    assert "python manage.py rebuild_image_index" in refused.value.message
    with pytest.raises(EncoderMismatch):
        add_to_memory(memory, write_library(tmp_path / "more", n=3), encoder=_OtherEncoder())


def test_an_open_clip_encoder_builds_its_own_memory(tmp_path):
    from workers.backends.openclip_encoder import OpenClipImageEncoder
    from workers.backends.spec import parse_spec

    folder = tiny.build_biomedclip_like(tmp_path / "tiny-biomedclip")
    encoder = OpenClipImageEncoder(parse_spec("image_encoder",
                                              f"open_clip:{folder}?device={tiny.DEVICE}"))
    studies = write_library(tmp_path / "files", n=4)
    memory = build_memory(tmp_path / "image_memory", studies, encoder=encoder)
    reopened = ImageMemory.open(tmp_path / "image_memory")
    assert (reopened.encoder.name, reopened.encoder.dim, reopened.encoder.learned) == \
        ("tiny-biomedclip", 512, True)
    hit = reopened.search(encoder.encode([load_pixels(studies[2].images[0].path)]), 1)[0][0]
    assert hit.study.id == 3 and hit.similarity == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(EncoderMismatch, match="rebuild_image_index"):
        memory.check_encoder(AppearanceDescriptorEncoder())


def test_studies_without_changes_are_described_once(tmp_path):
    memory = ImageMemory(tmp_path / "m")
    memory.set_encoder(AppearanceDescriptorEncoder())
    study = MemoryStudy(1, "a", "test", "No pneumothorax.", ("no pneumothorax",), ())
    memory.add([study], [MemoryImage(10, 1, "PA", "x.png")], np.eye(1, 512, dtype=np.float32))
    with pytest.raises(ValueError, match="already"):
        memory.add([], [MemoryImage(10, 1, "PA", "x.png")], np.eye(1, 512, dtype=np.float32))
    with pytest.raises(ValueError, match="unknown studies"):
        memory.add([], [MemoryImage(11, 2, "PA", "y.png")], np.eye(1, 512, dtype=np.float32))
    shutil.rmtree(tmp_path / "m", ignore_errors=True)
    assert phantom(1).shape == (192, 192)
