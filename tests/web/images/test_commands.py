"""The image memory's commands: training the phrase retriever, V-RAG fine-tuning data."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from radreview.library import image_import
from radreview.library.models import ReferenceStudy
from workers.rarrg.retriever import load_checkpoint
from workers.vrag.finetune import positive_labels

from .library_files import folder_per_study

pytestmark = pytest.mark.django_db


def test_train_phrase_retriever_writes_a_checkpoint_the_stage_can_load(tmp_path, settings, capsys):
    with pytest.raises(CommandError, match="image memory is empty"):
        call_command("train_phrase_retriever")
    images, reports = folder_per_study(tmp_path, n=4)
    image_import.run_import(images, reports)
    call_command("train_phrase_retriever", "--epochs", "3", "--d-model", "32", "--queries", "6",
                 "--layers", "1", "--batch-size", "4")
    out = capsys.readouterr().out
    assert "Trained on 8 images" in out and "1 feature source(s)" in out
    model = load_checkpoint(settings.RARRG_RETRIEVER_CHECKPOINT)
    assert model.config.queries == 6 and model.config.feature_dims == (512,)
    assert "small left pleural effusion" in model.config.phrases


def test_finetune_data_holds_the_three_tasks_under_the_label_condition(tmp_path, capsys):
    images, reports = folder_per_study(tmp_path, n=8, lateral=False)
    image_import.run_import(images, reports)
    output = tmp_path / "finetune"
    call_command("build_vrag_finetune_data", "--output", str(output), "--k", "3")
    out = capsys.readouterr().out
    reports_by_id = dict(ReferenceStudy.objects.values_list("external_id", "report"))
    for task in ("image_text_awareness", "image_focus", "retrieved_similar"):
        assert f"{task}: " in out
        lines = (output / f"{task}.jsonl").read_text().splitlines()
        assert lines, task
        for line in lines:
            example = json.loads(line)
            assert len(example["images"]) == 3 and all(path.endswith(".dcm")
                                                       for path in example["images"])
            target = positive_labels(reports_by_id[example["target"]])
            others = set().union(*(positive_labels(reports_by_id[o]) for o in example["others"]))
            distinctive = set(example["distinctive_labels"])
            assert distinctive and distinctive <= target - others
