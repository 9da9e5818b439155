"""The report rewritten so that it agrees with V-RAG's probe answers.

Built-in form, sentence by sentence: a sentence none of whose findings is contradicted stays
word for word; a contradicted sentence is rebuilt from its findings' short phrases with
* a finding the report states and the probe answers "no" dropped,
* a finding the report denies (explicitly, or through a normal statement such as "the lungs
  are clear") and the probe answers "yes" stated instead, in the wording the nearest
  reference reports use for it,
and left out when nothing remains. Findings answered "yes" that the report never mentions are
added at the end of the findings. With an llm role, the ``vrag_rewrite`` prompt does it.
"""
from __future__ import annotations

from dataclasses import dataclass

from workers.imagememory.entities import ABSENT, PRESENT, UNCERTAIN
from workers.nlp import parse_report
from workers.nlp.impression import as_sentence, impression_of
from workers.nlp.phrases import phrase_of
from workers.prompts import get_prompt
from workers.study import StudyContext


@dataclass(frozen=True)
class Correction:
    """What a probe decided about one observation of the report."""

    observation: str
    answer: str              # "yes" / "no"
    positive_phrase: str     # how to state it when answered yes


def sentence_phrases(findings, corrections: dict[str, Correction]) -> tuple[list[str], bool]:
    """(phrases of a sentence after the corrections, whether any correction applied)."""
    phrases: dict[str, None] = {}
    dropped_cues: set[str] = set()
    changed = False
    for f in findings:
        correction = corrections.get(f.observation)
        if correction is None:
            continue
        stated = f.status in (PRESENT, UNCERTAIN)
        if stated and correction.answer == "no":
            changed = True
        elif f.status == ABSENT and correction.answer == "yes":
            changed = True
            if f.implied and f.cue:
                dropped_cues.add(f.cue)
    if not changed:
        return [], False
    for f in findings:
        correction = corrections.get(f.observation)
        phrase = f.cue if f.implied and f.cue else phrase_of(f)
        if correction is not None and f.status in (PRESENT, UNCERTAIN) \
                and correction.answer == "no":
            continue
        if correction is not None and f.status == ABSENT and correction.answer == "yes":
            phrases.setdefault(correction.positive_phrase, None)
            continue
        if f.implied and f.cue in dropped_cues:
            continue
        phrases.setdefault(phrase, None)
    return list(phrases), True


def suggestion_for(sentence_text: str, findings, corrections) -> str | None:
    """The replacement of one sentence ("" = remove it), or None when nothing applies."""
    phrases, changed = sentence_phrases(findings, corrections)
    if not changed:
        return None
    return " ".join(as_sentence(p) for p in phrases)


def rewrite_report(ctx: StudyContext, corrections: dict[str, Correction],
                   omissions: list[str]) -> str:
    """The built-in rewrite of the context's report (see the module docstring)."""
    pieces: list[tuple[int, int, str]] = []
    for sentence in ctx.parsed.sentences:
        replacement = suggestion_for(sentence.text, ctx.findings[sentence.index], corrections)
        if replacement is not None:
            pieces.append((sentence.start, sentence.end, replacement))
    text = ctx.text
    for start, end, replacement in sorted(pieces, reverse=True):
        if replacement:
            text = text[:start] + replacement + text[end:]
        else:
            tail = end
            while tail < len(text) and text[tail] in " \t":
                tail += 1
            text = text[:start] + text[tail:]
    if omissions:
        addition = " ".join(as_sentence(p) for p in omissions)
        text = _insert_after_findings(text, addition)
    return _fill_empty_impression(text).strip()


def _fill_empty_impression(text: str) -> str:
    """An impression left without a sentence says what the findings now amount to."""
    parsed = parse_report(text)
    for section in parsed.sections:
        if section.name == "impression" and not parsed.sentences_in("impression"):
            findings = " ".join(s.text for s in parsed.sentences_in("findings"))
            return text[:section.start].rstrip() + " " + impression_of(findings) + \
                text[section.end:]
    return text


def _insert_after_findings(text: str, addition: str) -> str:
    parsed = parse_report(text)
    findings = [s for s in parsed.sentences if s.section == "findings"]
    if findings:
        end = findings[-1].end
        return text[:end] + " " + addition + text[end:]
    return (text.rstrip() + " " + addition).strip()


def rewrite_with_llm(llm, report: str, probes) -> tuple[str, str, str]:
    """(rewritten report, prompt version, model name)."""
    prompt = get_prompt("vrag_rewrite")
    answers = "\n".join(f"- {p.question} {p.answer}" for p in probes
                        if p.answer in ("yes", "no")) or "(no answers)"
    text = llm.complete(prompt.render(report=report, answers=answers), temperature=0.0,
                        max_tokens=prompt.max_tokens)
    return text.strip(), prompt.version, llm.name
