"""RA-RRG for a study: the draft from pooled views, unsupported sentences, the trained form."""
from __future__ import annotations

import pytest

from tests.support import dicom_factory as dicom
from tests.support import image_alterations as alt
from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.detectors import DETECTORS
from workers.imagememory import ImageMemory, QueryImage, load_pixels, memory_dir
from workers.pipeline import StageError
from workers.rarrg.retriever import save_checkpoint, train_on_memory
from workers.rarrg.run import run_rarrg
from workers.study import StudyContext
from workers.study.images import StudyImages

ENCODER = AppearanceDescriptorEncoder()


def query_file(tmp_path, source, name: str, seed: int = 0) -> QueryImage:
    pixels = alt.noise(load_pixels(source.path), 0.02, seed=seed)
    path = tmp_path / f"{name}.dcm"
    path.write_bytes(dicom.make_dicom(density=pixels, rows=pixels.shape[0], cols=pixels.shape[1],
                                      view=source.view))
    return QueryImage(str(path), "dicom", source.view)


def run(index_dir, images, report=None, embedder=None, **settings):
    ctx = StudyContext(report or "", images=StudyImages(tuple(images), index_dir=str(index_dir)),
                       settings={"rarrg": settings})
    return run_rarrg(ctx, image_encoder=ENCODER, text_embedder=embedder)


def test_the_draft_comes_from_the_phrases_of_similar_images_and_unsupported_sentences_flag(
        reference_library, text_embedder, tmp_path):
    studies, index_dir = reference_library
    images = [query_file(tmp_path, image, f"v{i}") for i, image in enumerate(studies[1].images)]
    report = ("FINDINGS: Moderate cardiomegaly. No pleural effusion. Heart size is normal.\n"
              "IMPRESSION: Cardiomegaly.")
    result = run(index_dir, images, report, text_embedder)
    assert result.retriever == "knn" and result.encoder == "builtin-appearance-v1"
    assert result.encoder_learned is False
    assert "Small left pleural effusion." in result.draft
    assert result.draft.startswith("FINDINGS: ") and "IMPRESSION: " in result.draft
    assert all(p["score"] >= 0.4 for p in result.phrases)
    by_sentence = {d.sentence_index: d for d in result.detections}
    assert set(by_sentence) == {0, 1, 3}  # "Heart size is normal." is supported
    effusion = by_sentence[1]
    assert effusion.detector == "rarrg"
    assert effusion.evidence["unsupported"] == "No pleural effusion."
    assert effusion.evidence["phrases"][0]["text"] == "small left pleural effusion"
    assert {"text", "score", "similarity"} <= set(effusion.evidence["phrases"][0])
    assert set(effusion.evidence) == set(DETECTORS["rarrg"].evidence_fields())
    assert "pleural effusion" in effusion.explanation and 0 < effusion.confidence <= 1
    assert {n["query"] for n in result.neighbours} == {0, 1}


def test_views_are_pooled_across_a_multi_view_study(reference_library, tmp_path):
    studies, index_dir = reference_library
    frontal = query_file(tmp_path, studies[1].images[0], "frontal")   # small left effusion
    lateral = query_file(tmp_path, studies[4].images[1], "lateral")   # ET tube, atelectasis
    alone = run(index_dir, [frontal])
    both = run(index_dir, [frontal, lateral])
    assert "small left pleural effusion" in [p["text"] for p in alone.phrases]
    texts = [p["text"] for p in both.phrases]
    assert "small left pleural effusion" in texts and "endotracheal tube" in texts
    assert "endotracheal tube" not in [p["text"] for p in alone.phrases]
    tube = next(p for p in both.phrases if p["text"] == "endotracheal tube")
    assert tube["views"] == [1] and 5 in tube["studies"]


def test_an_empty_memory_stops_the_stage_plainly(tmp_path):
    image = tmp_path / "a.png"
    image.write_bytes(dicom.make_png(seed=1))
    with pytest.raises(StageError, match="The image memory is empty"):
        run(tmp_path / "indexes", [QueryImage(str(image), "png")])


def test_the_trained_retriever_can_replace_the_knn_form(reference_library, tmp_path):
    studies, index_dir = reference_library
    memory = ImageMemory.open(memory_dir(index_dir))
    model, losses = train_on_memory(memory, epochs=40, batch_size=10, lr=3e-3, d_model=32,
                                    queries=8, layers=1, heads=2, dropout=0.0)
    assert sum(losses[-4:]) < sum(losses[:4])
    checkpoint = tmp_path / "phrase_retriever.pt"
    save_checkpoint(model, checkpoint)
    images = [query_file(tmp_path, studies[1].images[0], "q")]
    result = run(index_dir, images, retriever_checkpoint=str(checkpoint))
    assert result.retriever == "trained"
    assert all(p["score"] >= 0.4 for p in result.phrases)
    assert set(p["text"] for p in result.phrases) <= set(memory.phrases)
