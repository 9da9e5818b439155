"""JSON out of model replies: tolerant parsing, one retry with the error, then a loud failure."""
from __future__ import annotations

import pytest

from workers.backends import StructuredOutputError
from workers.backends.structured import (
    complete_json,
    complete_json_many,
    complete_prompt,
    parse_json_reply,
)
from workers.prompts import Prompt, Provenance

SCHEMA = {"type": "object",
          "properties": {"verdicts": {"type": "array", "items": {"enum": ["yes", "no"]}}},
          "required": ["verdicts"]}


class Scripted:
    """A TextModel that answers from a list and records what it was asked."""

    name = "scripted-model"

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.asked: list[list[dict]] = []

    def complete(self, messages, *, temperature=0.0, top_p=1.0, max_tokens=512,
                 json_schema=None):
        self.asked.append(list(messages))
        return self.replies.pop(0)

    def complete_many(self, conversations, **options):
        return [self.complete(messages, **options) for messages in conversations]


@pytest.mark.parametrize("reply", [
    '{"verdicts": ["yes"]}',
    '```json\n{"verdicts": ["yes"]}\n```',
    'Here is my answer:\n```\n{"verdicts": ["yes"]}\n```\nHope it helps.',
    'Sure. {"verdicts": ["yes"]} That is all.',
    '<think>The sample says {"x": 1}, hmm.</think>{"verdicts": ["yes"]}',
    '[1] Note first. {"verdicts": ["yes"]}',  # a list that parses but does not fit comes first
])
def test_parse_tolerates_wrappers(reply):
    assert parse_json_reply(reply, SCHEMA) == ({"verdicts": ["yes"]}, None)


def test_parse_explains_what_is_wrong():
    assert parse_json_reply("no idea", SCHEMA) == (None, "the reply contains no JSON value")
    value, problem = parse_json_reply('{"verdicts": ["yes", "perhaps"]}', SCHEMA)
    assert value is None
    assert problem == ("the JSON does not match the schema: 'perhaps' is not one of "
                       "['yes', 'no'] (at verdicts/1)")


def test_retry_carries_the_reply_and_the_validation_error():
    model = Scripted('{"verdicts": "yes"}', '{"verdicts": ["no"]}')
    asked = [{"role": "user", "content": "Judge."}]
    assert complete_json(model, asked, SCHEMA, task="entailment/v1") == {"verdicts": ["no"]}
    retry = model.asked[1]
    assert retry[0] == asked[0]
    assert retry[1] == {"role": "assistant", "content": '{"verdicts": "yes"}'}
    assert "'yes' is not of type 'array' (at verdicts)" in retry[2]["content"]
    assert '"required":["verdicts"]' in retry[2]["content"]


def test_two_failures_raise_naming_task_and_model():
    model = Scripted("not json", '{"other": 1}')
    with pytest.raises(StructuredOutputError) as caught:
        complete_json(model, [{"role": "user", "content": "Judge."}], SCHEMA,
                      task="judge/v1")
    error = caught.value
    assert error.task == "judge/v1" and error.model == "scripted-model"
    assert str(error).startswith("judge/v1: model scripted-model did not return valid JSON "
                                 "after 2 attempts (the reply contains no JSON value; then ")
    assert "'verdicts' is a required property" in str(error)
    assert error.last_reply == '{"other": 1}'


def test_no_model_means_the_rule_engine_must_answer():
    with pytest.raises(TypeError, match="the llm role is 'builtin'"):
        complete_json(None, [], SCHEMA, task="judge/v1")


def test_many_retries_only_the_failures():
    model = Scripted('{"verdicts": ["yes"]}', "oops", '{"verdicts": []}',
                     '{"verdicts": ["no"]}')
    conversations = [[{"role": "user", "content": f"item {i}"}] for i in range(3)]
    results = complete_json_many(model, conversations, SCHEMA, task="entailment/v1")
    assert results == [{"verdicts": ["yes"]}, {"verdicts": ["no"]}, {"verdicts": []}]
    assert len(model.asked) == 4
    assert model.asked[3][0]["content"] == "item 1"


def test_many_raises_for_an_item_that_fails_twice():
    model = Scripted('{"verdicts": ["yes"]}', "oops", "still not")
    with pytest.raises(StructuredOutputError, match=r"^entailment/v1 \(item 1\)"):
        complete_json_many(model, [[{"role": "user", "content": "a"}],
                                   [{"role": "user", "content": "b"}]], SCHEMA,
                           task="entailment/v1")


def test_complete_prompt_returns_the_value_and_its_provenance():
    prompt = Prompt(task="toy_judge", version="toy_judge/v3", system="You judge.",
                    user="Sentence: $sentence", schema=SCHEMA, max_tokens=32)
    model = Scripted('{"verdicts": ["yes"]}')
    value, provenance = complete_prompt(model, prompt, sentence="No effusion.")
    assert value == {"verdicts": ["yes"]}
    assert provenance == Provenance("toy_judge/v3", "scripted-model")
    assert model.asked[0] == [{"role": "system", "content": "You judge."},
                              {"role": "user", "content": "Sentence: No effusion."}]
