"""How a report and its retrieved context are shown to a language model."""
from __future__ import annotations

import copy

from workers.study.context import StudyContext

MAX_REFERENCE_CHARS = 600


def numbered_report(ctx: StudyContext) -> str:
    """One line per sentence: ``[number] (section) text``. Sentences are numbered from 1 (the
    index + 1), as the review page numbers them, so a model's explanation that names a
    sentence ("contradicts sentence 3") names the one the radiologist sees as sentence 3."""
    return "\n".join(f"[{s.index + 1}] ({s.section}) {s.text}" for s in ctx.parsed.sentences)


def index_of(number: int) -> int:
    """The sentence index of a sentence number a model answered with."""
    return number - 1


def references(ctx: StudyContext) -> str:
    if not ctx.neighbours:
        return "(none available)"
    lines = []
    for number, n in enumerate(ctx.neighbours, 1):
        text = " ".join(n.text.split())
        if len(text) > MAX_REFERENCE_CHARS:
            text = text[:MAX_REFERENCE_CHARS].rsplit(" ", 1)[0] + " ..."
        lines.append(f"{number}. {text}")
    return "\n".join(lines)


def bulleted(phrases: list[str]) -> str:
    return "\n".join(f"- {p}" for p in phrases) if phrases else "(none)"


def with_sentence_range(schema: dict, n_sentences: int, *paths: tuple[str, ...]) -> dict:
    """A copy of ``schema`` whose integer fields at ``paths`` must be a sentence number (1 to
    ``n_sentences``), so an out-of-range answer fails validation and is asked again."""
    schema = copy.deepcopy(schema)
    for path in paths:
        node = schema
        for key in path:
            node = node[key]
        node["minimum"] = 1
        node["maximum"] = max(1, n_sentences)
    return schema
