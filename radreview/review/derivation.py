"""How the final report text follows from the audited report and the review decisions.

Pure functions over plain values, so the rules are tested without a database:

* a decision is *undone* when an UNDO decision points at it;
* the *effective* decision of a sentence is its latest decision that is neither an UNDO nor
  undone; a sentence without one keeps its original text;
* the final text is the audited report's text with each decided sentence's span replaced by
  the decision's ``after_text`` ("" removes the sentence, with the whitespace it leaves, its
  list marker when it stood alone on a line, and its section header when the whole section
  is gone). Everything else (headers, line breaks, spacing) stays as the report had it.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from workers.nlp.sections import parse_report

UNDO = "undo"


class DecisionLike(Protocol):
    id: int
    action: str
    undoes_id: int | None
    sentence_id: int | None
    after_text: str


class SentenceLike(Protocol):
    index: int
    text: str
    start: int
    end: int
    section: str


def undone_ids(decisions: Iterable[DecisionLike]) -> set[int]:
    return {d.undoes_id for d in decisions if d.action == UNDO and d.undoes_id is not None}


def effective_decisions(decisions: Sequence[DecisionLike]) -> dict[int, DecisionLike]:
    """The effective decision per sentence id (latest, not an undo, not undone)."""
    undone = undone_ids(decisions)
    effective: dict[int, DecisionLike] = {}
    for decision in sorted(decisions, key=lambda d: d.id):
        if decision.action == UNDO or decision.id in undone or decision.sentence_id is None:
            continue
        effective[decision.sentence_id] = decision
    return effective


def last_undoable(decisions: Sequence[DecisionLike]) -> DecisionLike | None:
    """The decision an "undo" takes back: the study's latest one that is live."""
    undone = undone_ids(decisions)
    for decision in sorted(decisions, key=lambda d: d.id, reverse=True):
        if decision.action != UNDO and decision.id not in undone:
            return decision
    return None


# --- final text ------------------------------------------------------------------------------

_LINE_PREFIX_ONLY = re.compile(r"[ \t]*(?:\(?\d{1,2}[.)]|[-*\u2022\u2013])?[ \t]*")
_HEADER_AT = r"[ \t]*{header}[ \t]*:[ \t]*"


@dataclass(frozen=True)
class FinalSection:
    name: str
    title: str
    text: str

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "title": self.title, "text": self.text}


def _removal_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span to cut when a sentence goes: the sentence and the whitespace it leaves behind."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end
    if _LINE_PREFIX_ONLY.fullmatch(text[line_start:start]) and not text[end:line_end].strip():
        # The sentence was the whole line (perhaps after a list number): the line goes.
        return line_start, min(line_end + 1, len(text))
    after = end
    while after < len(text) and text[after] in " \t":
        after += 1
    if after > end:
        return start, after
    before = start
    while before > 0 and text[before - 1] in " \t":
        before -= 1
    return before, end


def _section_spans(text: str) -> list[tuple[str, str | None, int, int]]:
    """(name, header, span start including the header, body end) of each section."""

    spans = []
    previous_end = 0
    for section in parse_report(text).sections:
        start = section.start
        if section.header:
            headers = list(re.finditer(_HEADER_AT.format(header=re.escape(section.header)),
                                       text[previous_end:section.start]))
            if headers:
                start = previous_end + headers[-1].start()
        spans.append((section.name, section.header, start, section.end))
        previous_end = section.end
    return spans


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def final_text(
    original: str, sentences: Sequence[SentenceLike], replacements: dict[int, str]
) -> str:
    """The report text with ``replacements`` (sentence index -> new text, "" = remove) applied."""
    by_index = {s.index: s for s in sentences}
    changed = {i: t for i, t in replacements.items() if i in by_index and t != by_index[i].text}
    if not changed:
        return original
    removals = [_removal_span(original, by_index[i].start, by_index[i].end)
                for i, t in changed.items() if t.strip() == ""]
    removed = {i for i, t in changed.items() if t.strip() == ""}
    if removed:
        for _name, _header, start, end in _section_spans(original):
            members = [s.index for s in sentences if start <= s.start < end]
            if members and all(i in removed for i in members):
                line_end = original.find("\n", end)
                removals.append((start, len(original) if line_end == -1 else line_end + 1))
    edits: list[tuple[int, int, str]] = [(s, e, "") for s, e in _merge(removals)]
    for index, new_text in changed.items():
        sentence = by_index[index]
        if index not in removed and not any(s <= sentence.start < e for s, e, _ in edits):
            edits.append((sentence.start, sentence.end, new_text.strip()))
    result = original
    for start, end, replacement in sorted(edits, reverse=True):
        result = result[:start] + replacement + result[end:]
    return re.sub(r"\n{3,}", "\n\n", result).strip()


def final_sections(sentences: Sequence[SentenceLike], replacements: dict[int, str],
                   titles: dict[str, str] | None = None) -> list[FinalSection]:
    """The final text section by section (what the structured exports carry)."""
    titles = titles or {}
    grouped: list[tuple[str, list[str]]] = []
    for sentence in sorted(sentences, key=lambda s: s.index):
        text = replacements.get(sentence.index, sentence.text).strip()
        if not grouped or grouped[-1][0] != sentence.section:
            grouped.append((sentence.section, []))
        if text:
            grouped[-1][1].append(text)
    return [FinalSection(name, titles.get(name) or name.upper(), " ".join(texts))
            for name, texts in grouped if texts]


def section_titles(original: str) -> dict[str, str]:
    """Each section's header as the report wrote it ("FINDINGS", "Impression", ...)."""
    return {name: header for name, header, _s, _e in _section_spans(original) if header}
