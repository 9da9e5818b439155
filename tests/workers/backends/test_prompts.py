"""The prompt registry, rendering and provenance."""
from __future__ import annotations

import pytest

from workers.prompts import Prompt, Provenance, all_prompts, get_prompt, register
from workers.types import Detection


def test_registry_finds_the_task_modules():
    versions = {prompt.version for prompt in all_prompts()}
    assert {"report_generation/v1", "status_probe/v1"} <= versions
    assert get_prompt("report_generation").schema is None
    with pytest.raises(KeyError, match="no prompt for task 'nonexistent'"):
        get_prompt("nonexistent")


def test_every_registered_prompt_is_well_formed():
    for prompt in all_prompts():
        assert prompt.version.startswith(prompt.task + "/v")
        assert prompt.user.strip()


def test_render_with_json_braces_and_variables():
    prompt = Prompt(task="toy", version="toy/v1", system="Reply as {\"answer\": ...}.",
                    user="Report: $report\nSentence: ${sentence}. Cost: $$0",
                    schema={"type": "object"})
    assert prompt.variables == {"report", "sentence"}
    messages = prompt.render(report="No effusion.", sentence="Heart normal")
    assert messages == [
        {"role": "system", "content": 'Reply as {"answer": ...}.'},
        {"role": "user", "content": "Report: No effusion.\nSentence: Heart normal. Cost: $0"},
    ]
    assert prompt.text(report="a", sentence="b").startswith('Reply as {"answer": ...}.\n\n')


def test_render_names_missing_and_unknown_variables():
    prompt = Prompt(task="toy", version="toy/v1", system="", user="$report")
    assert prompt.render(report="x") == [{"role": "user", "content": "x"}]
    with pytest.raises(ValueError, match=r"prompt toy/v1: missing report; unknown reprot"):
        prompt.render(reprot="x")


@pytest.mark.parametrize("version", ["toy", "toy/1", "other/v1", "toy/v1.2"])
def test_version_must_name_the_task(version):
    with pytest.raises(ValueError, match="must read 'toy/v<N>'"):
        Prompt(task="toy", version=version, system="", user="x")


def test_invalid_schema_or_template_is_refused_at_definition():
    from jsonschema.exceptions import SchemaError

    with pytest.raises(SchemaError):
        Prompt(task="toy", version="toy/v1", system="", user="x", schema={"type": "nope"})
    with pytest.raises(ValueError, match="stray"):
        Prompt(task="toy", version="toy/v1", system="", user="costs $5")


def test_two_different_prompts_for_one_task_are_refused(monkeypatch):
    from workers.prompts import base

    monkeypatch.setattr(base, "_registry", dict(base._registry))
    register(Prompt(task="dup_test", version="dup_test/v1", system="", user="a"))
    register(Prompt(task="dup_test", version="dup_test/v1", system="", user="a"))  # same: fine
    with pytest.raises(ValueError, match="two different prompts for task 'dup_test'"):
        register(Prompt(task="dup_test", version="dup_test/v2", system="", user="b"))


def test_provenance_fills_a_detection():
    class Model:
        name = "Qwen2.5-7B-Instruct"

    prompt = get_prompt("report_generation")
    provenance = Provenance.of(prompt, Model())
    assert provenance == Provenance("report_generation/v1", "Qwen2.5-7B-Instruct")
    detection = Detection(sentence_index=0, start=0, end=5, detector="judge",
                          explanation="x", harm="low", confidence=0.5, **provenance.as_fields())
    assert detection.prompt_version == "report_generation/v1"
    assert Provenance.of(prompt, None) == Provenance(None, None)  # the rule engine answered
    assert Provenance.of(None, "gpt-x") == Provenance(None, "gpt-x")
