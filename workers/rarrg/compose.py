"""Writing a report from key phrases: the built-in composer and the LLM form.

The built-in composer puts the phrases in radiology order — support devices, heart and
mediastinum, lungs, pleura, bones, then anything else — one sentence per positive phrase,
the negative phrases of one structure joined ("No pleural effusion or pneumothorax."). The
impression lists the abnormal findings, most harmful first, or says there is no acute
abnormality.
"""
from __future__ import annotations

import re

from workers.nlp import category_of
from workers.nlp.impression import GLOBAL_NORMAL, as_sentence, impression_of
from workers.prompts import get_prompt

ORDER = ("Devices", "Cardiomediastinal", "Lungs", "Pleura", "Musculoskeletal", "Other")
_NEGATIVE_RE = re.compile(r"^no\s+")


def _category(phrase: str) -> str:
    category = category_of(phrase)
    return category if category in ORDER else "Other"


def _join_negatives(phrases: list[str]) -> str:
    items = [_NEGATIVE_RE.sub("", p) for p in phrases]
    if len(items) == 1:
        body = items[0]
    elif len(items) == 2:
        body = f"{items[0]} or {items[1]}"
    else:
        body = ", ".join(items[:-1]) + f" or {items[-1]}"
    return as_sentence("no " + body)


def compose_report(phrases) -> str:
    """FINDINGS and IMPRESSION from phrases (strings or objects with ``.text``)."""
    texts = [getattr(p, "text", p) for p in phrases]
    texts = [" ".join(str(t).split()).strip(" .") for t in texts]
    texts = [t for t in dict.fromkeys(texts) if t]
    findings_phrases = [t for t in texts if t.lower() != GLOBAL_NORMAL]
    by_category: dict[str, list[str]] = {c: [] for c in ORDER}
    for text in findings_phrases:
        by_category[_category(text)].append(text)
    sentences = []
    for category in ORDER:
        group = by_category[category]
        positives = [t for t in group if not _NEGATIVE_RE.match(t.lower())]
        negatives = [t for t in group if _NEGATIVE_RE.match(t.lower())]
        sentences.extend(as_sentence(t) for t in positives)
        if negatives:
            sentences.append(_join_negatives(negatives))
    impression = impression_of(findings_phrases)
    findings = " ".join(sentences) or "No findings were retrieved."
    return f"FINDINGS: {findings}\nIMPRESSION: {impression}"


def compose_with_llm(llm, phrases) -> tuple[str, str, str]:
    """(report, prompt version, model name) from the llm role."""
    prompt = get_prompt("rarrg_compose")
    listing = "\n".join(f"- {getattr(p, 'text', p)} ({getattr(p, 'score', 1.0):.2f})"
                        for p in phrases) or "(no phrases)"
    text = llm.complete(prompt.render(phrases=listing), temperature=0.0,
                        max_tokens=prompt.max_tokens)
    return text.strip(), prompt.version, llm.name


def truncate_to_words(phrases: list, max_words: int) -> list:
    """The leading phrases whose words fit the budget (always at least one)."""
    kept, words = [], 0
    for phrase in phrases:
        count = len(str(getattr(phrase, "text", phrase)).split()) + 1
        if kept and words + count > max_words:
            break
        kept.append(phrase)
        words += count
    return kept
