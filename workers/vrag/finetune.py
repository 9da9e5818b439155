"""V-RAG's three fine-tuning task sets, built from the reference library.

Each example shows a multimodal model K images and asks about one of them, the *target*:

* ``image_text_awareness`` — K images and the target's report: which image does the report
  describe? (answer "Image j");
* ``image_focus`` — K images: write the report of image j (answer: the target's report);
* ``retrieved_similar`` — the K−1 reference studies most similar to the target (images and
  reports) and then the target image: write the target's report, learning to use retrieved
  studies without copying them.

The condition that makes every example answerable only by looking: the target's report has a
positive CheXpert label (``workers.nlp.chexpert_labels``; "No Finding" counts) that none of
the other K−1 reports has. Other studies are drawn at random for the first two tasks (several
tries, then the target is skipped); for the third they are the nearest neighbours, taken in
order of similarity and skipped when they would leave the target nothing of its own.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from workers.nlp import chexpert_labels, extract_findings

TASKS = ("image_text_awareness", "image_focus", "retrieved_similar")
DRAWS = 25


@dataclass(frozen=True)
class FinetuneStudy:
    id: int
    external_id: str
    report: str
    image: str                  # path of the study's (frontal) image
    labels: frozenset[str]      # positive CheXpert labels


@lru_cache(maxsize=65536)
def positive_labels(report: str) -> frozenset[str]:
    labels = chexpert_labels(extract_findings(report))
    return frozenset(name for name, value in labels.items() if value == 1)


def make_study(id: int, external_id: str, report: str, image: str) -> FinetuneStudy:
    return FinetuneStudy(id, external_id, report, image, positive_labels(report))


def distinctive(target: FinetuneStudy, others) -> frozenset[str]:
    """The target's positive labels that no other report has."""
    seen = set()
    for other in others:
        seen |= other.labels
    return target.labels - seen


def _clean(report: str) -> str:
    return " ".join(report.split())


def _pick_random(target, pool, k, rng) -> list[FinetuneStudy] | None:
    candidates = [s for s in pool if s.id != target.id]
    if len(candidates) < k - 1:
        return None
    for _ in range(DRAWS):
        others = rng.sample(candidates, k - 1)
        if distinctive(target, others):
            return others
    return None


def _pick_neighbours(target, neighbours, k) -> list[FinetuneStudy] | None:
    chosen: list[FinetuneStudy] = []
    for other in neighbours:
        if other.id == target.id:
            continue
        if distinctive(target, chosen + [other]):
            chosen.append(other)
            if len(chosen) == k - 1:
                return chosen
    return None


def awareness_example(target, others, rng) -> dict:
    images = [target] + list(others)
    rng.shuffle(images)
    j = images.index(target) + 1
    return {
        "task": "image_text_awareness",
        "images": [s.image for s in images],
        "prompt": (f"Here are {len(images)} chest radiographs, numbered 1 to {len(images)} in "
                   f"the order shown. Which image does this report describe?\nReport: "
                   f"{_clean(target.report)}\nAnswer with the image number."),
        "answer": f"Image {j}",
        "target": target.external_id, "target_index": j,
        "others": [s.external_id for s in others],
        "distinctive_labels": sorted(distinctive(target, others)),
    }


def focus_example(target, others, rng) -> dict:
    images = [target] + list(others)
    rng.shuffle(images)
    j = images.index(target) + 1
    return {
        "task": "image_focus",
        "images": [s.image for s in images],
        "prompt": (f"Here are {len(images)} chest radiographs, numbered 1 to {len(images)} in "
                   f"the order shown. Write the radiology report of image {j} only."),
        "answer": _clean(target.report),
        "target": target.external_id, "target_index": j,
        "others": [s.external_id for s in others],
        "distinctive_labels": sorted(distinctive(target, others)),
    }


def retrieved_example(target, neighbours) -> dict:
    references = "\n".join(f"Reference {i}: {_clean(s.report)}"
                           for i, s in enumerate(neighbours, 1))
    n = len(neighbours)
    return {
        "task": "retrieved_similar",
        "images": [s.image for s in neighbours] + [target.image],
        "prompt": (f"The first {n} images are reference studies similar to the last one; "
                   f"their reports, in order:\n{references}\nWrite the radiology report of the "
                   f"last image, describing what it shows rather than what the references "
                   f"show."),
        "answer": _clean(target.report),
        "target": target.external_id, "target_index": n + 1,
        "others": [s.external_id for s in neighbours],
        "distinctive_labels": sorted(distinctive(target, neighbours)),
    }


def build_tasks(studies: list[FinetuneStudy],
                neighbours: Callable[[FinetuneStudy], list[FinetuneStudy]], *, k: int = 3,
                seed: int = 0, limit: int | None = None) -> dict[str, list[dict]]:
    """The three task sets (deterministic for a seed); ``neighbours(study)`` gives the
    library's studies most similar to ``study``, best first."""
    if k < 2:
        raise ValueError("k must be at least 2 (the target and one other study)")
    rng = random.Random(seed)
    out: dict[str, list[dict]] = {task: [] for task in TASKS}
    for target in studies:
        if not target.labels:
            continue
        if limit is None or len(out["image_text_awareness"]) < limit:
            others = _pick_random(target, studies, k, rng)
            if others is not None:
                out["image_text_awareness"].append(awareness_example(target, others, rng))
        if limit is None or len(out["image_focus"]) < limit:
            others = _pick_random(target, studies, k, rng)
            if others is not None:
                out["image_focus"].append(focus_example(target, others, rng))
        if limit is None or len(out["retrieved_similar"]) < limit:
            chosen = _pick_neighbours(target, neighbours(target), k)
            if chosen is not None:
                out["retrieved_similar"].append(retrieved_example(target, chosen))
    return out
