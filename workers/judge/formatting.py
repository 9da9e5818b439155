"""How a report and its retrieved context are shown to a language model."""
from __future__ import annotations

import copy

from workers.judge.context import ReportContext

MAX_REFERENCE_CHARS = 600


def numbered_report(ctx: ReportContext) -> str:
    """One line per sentence: ``[index] (section) text``; the numbers are sentence indices."""
    return "\n".join(f"[{s.index}] ({s.section}) {s.text}" for s in ctx.parsed.sentences)


def references(ctx: ReportContext) -> str:
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
    """A copy of ``schema`` whose integer fields at ``paths`` must be a sentence index (below
    ``n_sentences``), so an out-of-range answer fails validation and is asked again."""
    schema = copy.deepcopy(schema)
    for path in paths:
        node = schema
        for key in path:
            node = node[key]
        node["maximum"] = max(0, n_sentences - 1)
    return schema
