"""V-RAG fine-tuning data: the three task sets and the distinctive-label condition."""
from __future__ import annotations

from workers.vrag.finetune import TASKS, build_tasks, distinctive, make_study

REPORTS = [
    "No acute cardiopulmonary abnormality. The lungs are clear.",
    "Small left pleural effusion.",
    "Mild cardiomegaly. Small bilateral pleural effusions.",
    "Right lower lobe consolidation.",
    "Endotracheal tube in place. Left lower lobe atelectasis.",
    "Large right pneumothorax.",
    "Mild cardiomegaly.",
    "Right pleural effusion and mild cardiomegaly.",
]


def library():
    return [make_study(i + 1, f"s{i + 1}", report, f"/images/s{i + 1}.png")
            for i, report in enumerate(REPORTS)]


def test_every_example_s_target_has_a_label_no_other_report_has():
    studies = library()
    by_id = {s.external_id: s for s in studies}
    tasks = build_tasks(studies, lambda s: [o for o in studies if o.id != s.id], k=3, seed=1)
    assert set(tasks) == set(TASKS)
    for task, examples in tasks.items():
        assert examples, task
        for example in examples:
            target = by_id[example["target"]]
            others = [by_id[o] for o in example["others"]]
            assert len(others) == 2 and target not in others
            assert example["distinctive_labels"] == sorted(distinctive(target, others))
            assert example["distinctive_labels"]
            for label in example["distinctive_labels"]:
                assert label in target.labels and all(label not in o.labels for o in others)
            assert len(example["images"]) == 3
            assert example["images"][example["target_index"] - 1] == target.image


def test_the_three_tasks_ask_what_the_paper_asks():
    studies = library()
    tasks = build_tasks(studies, lambda s: [o for o in studies if o.id != s.id], k=3, seed=0)
    awareness = tasks["image_text_awareness"][0]
    assert awareness["answer"] == f"Image {awareness['target_index']}"
    assert "Which image does this report describe?" in awareness["prompt"]
    focus = tasks["image_focus"][0]
    assert f"image {focus['target_index']} only" in focus["prompt"]
    retrieved = tasks["retrieved_similar"][0]
    assert retrieved["target_index"] == 3 and retrieved["images"][-1].endswith(
        f"{retrieved['target']}.png")
    assert "Reference 1:" in retrieved["prompt"] and "Reference 2:" in retrieved["prompt"]
    target = next(s for s in studies if s.external_id == retrieved["target"])
    assert retrieved["answer"] == target.report


def test_retrieved_neighbours_that_would_leave_nothing_distinctive_are_skipped():
    studies = library()
    cardiomegaly_only = studies[6]          # "Mild cardiomegaly."
    both = studies[7]                       # effusion and cardiomegaly
    # The nearest neighbour shares cardiomegaly, the target's only label: it is skipped.
    neighbours = {cardiomegaly_only.id: [both, studies[2], studies[1], studies[0]]}
    tasks = build_tasks([cardiomegaly_only], lambda s: neighbours[s.id], k=3, seed=0)
    [example] = tasks["retrieved_similar"]
    assert example["others"] == ["s2", "s1"]
    assert build_tasks([studies[6]], lambda s: [studies[7], studies[2]], k=3)[
        "retrieved_similar"] == []


def test_the_sets_are_the_same_for_the_same_seed():
    studies = library()
    neighbours = lambda s: [o for o in studies if o.id != s.id]  # noqa: E731
    assert build_tasks(studies, neighbours, seed=3) == build_tasks(studies, neighbours, seed=3)
