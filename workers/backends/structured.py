"""JSON answers from the llm role, validated against a schema, never silently defaulted.

``complete_json(model, messages, schema, task=...)``:

1. asks the model (passing the schema as a hint, which a backend configured for constrained
   decoding uses);
2. takes the JSON value out of the reply — a bare value, a ```json fenced block, or a value
   after leading prose; reasoning models' ``<think>…</think>`` blocks are skipped;
3. validates it with jsonschema;
4. on failure asks once more, with its reply and the exact problem appended to the
   conversation;
5. on a second failure raises ``StructuredOutputError`` naming the task, the model and both
   problems. The stage that asked fails; it never gets a made-up default.
"""
from __future__ import annotations

import json
import logging
import re
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from workers.prompts import Provenance

from .errors import StructuredOutputError
from .roles import Message, TextModel

log = logging.getLogger(__name__)

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)


def _validator(schema: dict[str, Any]) -> Any:

    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _json_candidates(reply: str) -> list[Any]:
    """Every JSON value found in the reply, most likely first."""
    text = _THINK.sub("", reply).strip()
    blocks = [match.group(1).strip() for match in _FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    found: list[Any] = []
    for block in blocks:
        try:
            found.append(json.loads(block))
            continue
        except ValueError:
            pass
        for position, char in enumerate(block):
            if char in "{[":
                try:
                    value, _ = decoder.raw_decode(block, position)
                except ValueError:
                    continue
                found.append(value)
    return found


def _describe_error(error: Any) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    return f"{error.message} (at {where or 'the top level'})"


def parse_json_reply(reply: str, schema: dict[str, Any]) -> tuple[Any, str | None]:
    """(value, None) for the first JSON value in the reply that satisfies the schema, or
    (None, what is wrong) when there is none."""

    validator = _validator(schema)
    candidates = _json_candidates(reply)
    if not candidates:
        return None, "the reply contains no JSON value"
    for value in candidates:
        if validator.is_valid(value):
            return value, None
    error = best_match(validator.iter_errors(candidates[0]))
    return None, f"the JSON does not match the schema: {_describe_error(error)}"


def _retry_turns(reply: str, problem: str, schema: dict[str, Any]) -> list[Message]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": (
            f"That reply could not be used: {problem}. Answer again with only a JSON value, "
            "no other text, that satisfies this JSON schema: "
            f"{json.dumps(schema, separators=(',', ':'))}")},
    ]


def complete_json(model: TextModel, messages: list[Message], schema: dict[str, Any], *,
                  task: str, temperature: float = 0.0, top_p: float = 1.0,
                  max_tokens: int = 1024) -> Any:
    """The model's JSON answer (dict or list) satisfying ``schema``; see the module docstring."""
    if model is None:
        raise TypeError(f"{task}: complete_json needs a language model; the llm role is "
                        "'builtin', so the rule engine must serve this task")
    _validator(schema)
    conversation = list(messages)
    problems: list[str] = []
    reply = ""
    for attempt in range(2):
        reply = model.complete(conversation, temperature=temperature, top_p=top_p,
                               max_tokens=max_tokens, json_schema=schema)
        value, problem = parse_json_reply(reply, schema)
        if problem is None:
            return value
        problems.append(problem)
        if attempt == 0:
            log.info("%s: %s gave unusable JSON (%s); asking again", task, model.name, problem)
            conversation = conversation + _retry_turns(reply, problem, schema)
    raise StructuredOutputError(task, model.name, problems, reply)


def complete_json_many(model: TextModel, conversations: list[list[Message]],
                       schema: dict[str, Any], *, task: str, temperature: float = 0.0,
                       top_p: float = 1.0, max_tokens: int = 1024) -> list[Any]:
    """``complete_json`` for many conversations: one batched pass, then one batched retry of
    the failures. Raises StructuredOutputError for the first item that fails twice."""
    if model is None:
        raise TypeError(f"{task}: complete_json_many needs a language model")
    _validator(schema)
    replies = model.complete_many(conversations, temperature=temperature, top_p=top_p,
                                  max_tokens=max_tokens, json_schema=schema)
    results: list[Any] = [None] * len(conversations)
    retry: dict[int, tuple[str, str]] = {}
    for index, reply in enumerate(replies):
        value, problem = parse_json_reply(reply, schema)
        if problem is None:
            results[index] = value
        else:
            retry[index] = (reply, problem)
    if not retry:
        return results
    log.info("%s: %s gave unusable JSON for %d of %d items; asking again", task, model.name,
             len(retry), len(conversations))
    indices = sorted(retry)
    second = model.complete_many(
        [list(conversations[i]) + _retry_turns(*retry[i], schema) for i in indices],
        temperature=temperature, top_p=top_p, max_tokens=max_tokens, json_schema=schema)
    for index, reply in zip(indices, second):
        value, problem = parse_json_reply(reply, schema)
        if problem is not None:
            raise StructuredOutputError(f"{task} (item {index})", model.name,
                                        [retry[index][1], problem], reply)
        results[index] = value
    return results


def complete_prompt(model: TextModel, prompt: Any, *, temperature: float = 0.0,
                    max_tokens: int | None = None, **variables: Any) -> tuple[Any, Any]:
    """Render a registered ``Prompt`` with ``variables``, get its validated JSON answer.

    Returns ``(value, Provenance)``; store the provenance with whatever the value produces.
    """

    if prompt.schema is None:
        raise ValueError(f"prompt {prompt.version} has no JSON schema; use model.complete()")
    value = complete_json(model, prompt.render(**variables), prompt.schema, task=prompt.version,
                          temperature=temperature,
                          max_tokens=max_tokens if max_tokens is not None else prompt.max_tokens)
    return value, Provenance.of(prompt, model)
