"""The LLM form of RadFlag support: one call per sentence, every sample judged in it.

The reply must put each sample number 1..n in exactly one of ``complete`` / ``partial`` /
``none``. JSON-schema validation catches shapes and numbers outside 1..n; ``coverage_problem``
catches a sample listed twice or not at all. A failing reply is answered with the exact
problem and asked once more (all failing sentences together, in one batched pass); a second
failure raises ``StructuredOutputError`` naming the sentence. Nothing is truncated, dropped or
filled in with a default verdict.
"""
from __future__ import annotations

import copy
import json
import logging
from collections.abc import Sequence
from typing import Any

from workers.backends.errors import BackendRequestError, StructuredOutputError
from workers.backends.structured import parse_json_reply
from workers.pipeline import Progress, no_progress
from workers.prompts import get_prompt

from .verdicts import COMPLETE, NONE, PARTIAL, SampleVerdict

log = logging.getLogger(__name__)

TASK = "radflag_support"
LISTS = (COMPLETE, PARTIAL, NONE)


def schema_for(n: int) -> dict[str, Any]:
    """The prompt's schema with sample numbers bounded to 1..n."""

    schema = copy.deepcopy(get_prompt(TASK).schema)
    for name in LISTS:
        schema["properties"][name]["items"]["maximum"] = n
    return schema


def numbered(samples: Sequence[str]) -> str:
    return "\n\n".join(f"Report {number}:\n{text.strip()}" for number, text in
                       enumerate(samples, start=1))


def coverage_problem(value: dict[str, Any], n: int) -> str | None:
    """What is wrong with the lists' coverage of samples 1..n, or None when each is in one."""
    seen: dict[int, str] = {}
    problems = []
    for name in LISTS:
        for number in value.get(name, []):
            if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= n:
                problems.append(f"{number!r} is not a report number (they run from 1 to {n})")
            elif number in seen:
                problems.append(f"report {number} is in both {seen[number]!r} and {name!r}")
            else:
                seen[number] = name
    missing = [number for number in range(1, n + 1) if number not in seen]
    if missing:
        listed = ", ".join(str(number) for number in missing)
        problems.append(f"report{'s' if len(missing) > 1 else ''} {listed} "
                        f"{'are' if len(missing) > 1 else 'is'} in none of the lists")
    return "; ".join(problems) or None


def check_reply(reply: str, schema: dict[str, Any], n: int) -> tuple[dict | None, str | None]:
    value, problem = parse_json_reply(reply, schema)
    if problem is None:
        problem = coverage_problem(value, n)
    return (value, None) if problem is None else (None, problem)


def verdicts_of(value: dict[str, Any], n: int) -> list[SampleVerdict]:
    """0-based verdicts in sample order from a checked reply."""
    reasons = value.get("reasons") or {}
    verdict_of = {number: name for name in LISTS for number in value[name]}
    return [SampleVerdict(number - 1, verdict_of[number], str(reasons.get(str(number), "")).strip())
            for number in range(1, n + 1)]


def _retry_turns(reply: str, problem: str, n: int) -> list[dict[str, str]]:
    return [
        {"role": "assistant", "content": reply},
        {"role": "user", "content": (
            f"That reply could not be used: {problem}. Answer again with only the JSON object, "
            f"putting every report number from 1 to {n} in exactly one of the lists "
            "\"complete\", \"partial\" and \"none\".")},
    ]


def judge_with_model(model, sentences: Sequence[str], samples: Sequence[str], *,
                     progress: Progress = no_progress) -> list[list[SampleVerdict]]:
    """Each sentence's verdicts from every sample, by the llm role (see the module docstring)."""

    if not sentences:
        return []
    prompt = get_prompt(TASK)
    n = len(samples)
    schema = schema_for(n)
    listing = numbered(samples)
    conversations = [prompt.render(sentence=sentence.strip(), samples=listing, n=n)
                     for sentence in sentences]
    replies = model.complete_many(conversations, temperature=0.0, max_tokens=prompt.max_tokens,
                                  json_schema=schema)
    if len(replies) != len(conversations):
        raise BackendRequestError(f"{model.name} returned {len(replies)} replies for "
                                  f"{len(conversations)} sentences")
    results: list[list[SampleVerdict] | None] = [None] * len(sentences)
    retry: dict[int, tuple[str, str]] = {}
    for index, reply in enumerate(replies):
        value, problem = check_reply(reply, schema, n)
        if problem is None:
            results[index] = verdicts_of(value, n)
        else:
            retry[index] = (reply, problem)
    progress(0.5 if retry else 1.0,
             f"{len(sentences) - len(retry)} of {len(sentences)} sentences judged")
    if retry:
        log.info("%s: %s gave unusable verdict lists for %d of %d sentences; asking again",
                 prompt.version, model.name, len(retry), len(sentences))
        indices = sorted(retry)
        second = model.complete_many(
            [conversations[i] + _retry_turns(*retry[i], n) for i in indices],
            temperature=0.0, max_tokens=prompt.max_tokens, json_schema=schema)
        for index, reply in zip(indices, second):
            value, problem = check_reply(reply, schema, n)
            if problem is not None:
                sentence = sentences[index]
                excerpt = sentence if len(sentence) <= 80 else sentence[:80] + "…"
                raise StructuredOutputError(
                    f"{prompt.version} (sentence {json.dumps(excerpt, ensure_ascii=False)})",
                    model.name, [retry[index][1], problem], reply)
            results[index] = verdicts_of(value, n)
    progress(1.0, f"{len(sentences)} sentences judged")
    return results  # type: ignore[return-value]  # every entry is filled or we raised
