"""The built-in retrieval generator: empty memory, temperature behaviour, determinism."""
from __future__ import annotations

import numpy as np
import pytest

from tests.support import image_alterations as alt
from workers.backends import Generator, ImageInput
from workers.backends.builtin import AppearanceDescriptorEncoder
from workers.imagememory import load_pixels
from workers.pipeline import StageError
from workers.rarrg.generator import RetrievalGenerator, load_builtin_generator
from workers.rarrg.retrieval import ScoredPhrase

ENCODER = AppearanceDescriptorEncoder()


def study_images(studies, index: int = 1) -> list[ImageInput]:
    views = []
    for image in studies[index].images:
        pixels = alt.noise(load_pixels(image.path), 0.02, seed=index)
        views.append(ImageInput(pixels, image.view))
    return views


def test_an_empty_memory_says_so_plainly(tmp_path):
    with pytest.raises(StageError) as refused:
        load_builtin_generator(tmp_path / "indexes", encoder=ENCODER)
    assert refused.value.message.startswith("The image memory is empty: import reference studies "
                                            "with images")
    assert "import_reference --images DIR --reports FILE" in refused.value.message


def test_it_is_a_generator_and_reports_come_from_the_library(reference_library):
    studies, index_dir = reference_library
    generator = load_builtin_generator(index_dir, encoder=ENCODER)
    assert isinstance(generator, Generator) and generator.name == "builtin-retrieval-generator"
    [report] = generator.generate(study_images(studies), "ignored", temperature=0.1, n=1)
    assert report.startswith("FINDINGS: ") and "\nIMPRESSION: " in report
    assert "Small left pleural effusion." in report  # the phrases of the nearest study


def test_low_temperature_is_near_deterministic_and_high_temperature_varies(reference_library):
    studies, index_dir = reference_library
    generator = load_builtin_generator(index_dir, encoder=ENCODER)
    images = study_images(studies, 2)
    cold = generator.generate(images, "", temperature=0.1, n=10)
    hot = generator.generate(images, "", temperature=1.0, n=10)
    assert len(cold) == len(hot) == 10
    most_common = max(cold.count(text) for text in cold)
    assert most_common >= 9, cold
    assert len(set(hot)) >= 4, hot
    # The samples say different things, not only in a different order.
    findings = [set(text.split("IMPRESSION")[0].split(". ")) for text in hot]
    assert len({frozenset(f) for f in findings}) >= 4


def test_samples_are_deterministic_given_the_seed(reference_library):
    studies, index_dir = reference_library
    images = study_images(studies, 3)
    first = load_builtin_generator(index_dir, encoder=ENCODER, seed=7)
    again = load_builtin_generator(index_dir, encoder=ENCODER, seed=7)
    other = load_builtin_generator(index_dir, encoder=ENCODER, seed=8)
    samples = first.generate(images, "", temperature=1.0, n=6)
    assert again.generate(images, "", temperature=1.0, n=6) == samples
    assert other.generate(images, "", temperature=1.0, n=6) != samples


def test_temperature_zero_gives_n_copies_of_the_greedy_report(reference_library):
    studies, index_dir = reference_library
    generator = load_builtin_generator(index_dir, encoder=ENCODER)
    reports = generator.generate(study_images(studies, 4), "", temperature=0.0, n=3)
    assert len(reports) == 3 and len(set(reports)) == 1
    with pytest.raises(ValueError):
        generator.generate([], "", temperature=0.5, n=1)


def test_a_higher_temperature_flattens_the_neighbour_softmax():
    sims = np.array([0.99, 0.97, 0.96, 0.90, 0.80])
    logits = RetrievalGenerator.neighbour_logits(sims)
    weights = {t: np.exp(logits / t) / np.exp(logits / t).sum() for t in (0.1, 1.0)}
    assert weights[0.1][0] > 0.9 and weights[1.0][0] < 0.6


class _OtherEncoder:
    name, dim, learned = "biomedclip", 512, True

    def encode(self, images):
        return np.ones((len(images), 512), np.float32) / np.sqrt(512)


def test_another_encoder_than_the_memory_s_is_refused(reference_library):
    studies, index_dir = reference_library
    generator = load_builtin_generator(index_dir, encoder=_OtherEncoder())
    with pytest.raises(StageError, match="rebuild_image_index"):
        generator.generate(study_images(studies), "", temperature=0.1, n=1)


def test_scored_phrase_serialises():
    assert ScoredPhrase("no pneumothorax", 0.91234, (0,), (3,)).to_dict() == {
        "text": "no pneumothorax", "score": 0.9123, "views": [0], "studies": [3]}


def test_the_model_roles_probe_tests_the_builtin_generator_for_real(reference_library, tmp_path,
                                                                    monkeypatch):
    from workers.backends import registry

    studies, index_dir = reference_library
    registry.reset()
    registry.configure({})
    monkeypatch.setattr(registry, "_builtin_generator_loader",
                        lambda: load_builtin_generator(index_dir, encoder=ENCODER))
    result = registry.probe("generator")
    assert result.ok and "drafted 'FINDINGS:" in result.detail, result
    monkeypatch.setattr(registry, "_builtin_generator_loader",
                        lambda: load_builtin_generator(tmp_path / "empty", encoder=ENCODER))
    result = registry.probe("generator")
    assert not result.ok and "The image memory is empty" in result.error
    registry.reset()
