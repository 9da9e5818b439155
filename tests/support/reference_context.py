"""The reference ConText: spaCy's blank English tokenizer + medspacy's ConText with our rules.

This is the engine's implementation before workers/nlp/context.py ran ConText itself; it stays
here, for tests only, as the oracle the engine's own ConText is checked against
(tests/workers/nlp/test_context_reference.py, bench/context_differential.py). It also writes
the English tokenizer's data that workers/nlp/tokenizer.py reads:

    .venv/bin/python -m tests.support.reference_context --write-tokenizer-data
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import logging
import random
import re
from functools import lru_cache
from pathlib import Path

from workers.nlp.context import (
    AFFIRM,
    HISTORICAL,
    HYPOTHETICAL,
    NEGATED,
    POSSIBLE,
    PROBABLE,
    PSEUDO,
    RADIOLOGY_RULES,
    RULES_FILE,
    Assertion,
    resolve,
)

# where workers/nlp/tokenizer.py reads the data (named here: that module needs the file to load)
DATA_FILE = RULES_FILE.with_name("tokenizer_en.json")


def _drop_record(record: logging.LogRecord) -> bool:
    return False


@lru_cache(maxsize=1)
def pipeline():
    """spaCy's blank English and medspacy's ConText with the project's rules."""
    logging.getLogger("PyRuSH").addFilter(_drop_record)
    import spacy  # noqa: PLC0415 - only the reference loads spaCy, and only when used
    from medspacy.context import ConText, ConTextRule  # noqa: PLC0415 - likewise

    nlp = spacy.blank("en")
    context = ConText(nlp, rules=None, input_span_type="group", span_group_name="targets",
                      prune_on_modifier_overlap=True, prune_on_target_overlap=False,
                      span_attrs=None)
    rules = []
    for literal, category, direction, max_scope in RADIOLOGY_RULES:
        terminated_by = None
        if category == NEGATED and direction == "FORWARD":
            terminated_by = {POSSIBLE, PROBABLE, AFFIRM}
        elif category == NEGATED:
            terminated_by = {POSSIBLE, PROBABLE}
        elif category in (POSSIBLE, PROBABLE, HYPOTHETICAL, HISTORICAL):
            terminated_by = {NEGATED}
        rules.append(ConTextRule(literal, category, direction=direction, max_scope=max_scope,
                                 terminated_by=terminated_by))
    # Every cue is a phrase, so ConText's token Matcher would be empty and spaCy would warn
    # (W036) on every document; one token pattern that cannot match keeps it quiet.
    rules.append(ConTextRule("<no cue>", PSEUDO, direction="PSEUDO",
                             pattern=[{"ORTH": "\u2400no-cue\u2400"}]))
    context.add(rules)
    return nlp, context


def token_spans(text: str) -> list[tuple[int, int]]:
    """spaCy's tokens of ``text`` as character spans."""
    nlp, _ = pipeline()
    return [(t.idx, t.idx + len(t)) for t in nlp.make_doc(text)]


def verdicts(text: str, sentence_spans: tuple[tuple[int, int], ...],
             targets: tuple[tuple[int, int], ...]) -> tuple[Assertion, ...]:
    """What the engine's ``context._verdicts`` answered when medspacy ran ConText."""
    nlp, context = pipeline()
    doc = nlp.make_doc(text)
    if len(doc) < 2:
        return tuple(Assertion(None, None) for _ in targets)
    starts = {0}
    for start, _ in sentence_spans:
        span = doc.char_span(start, start + 1, alignment_mode="expand")
        if span is not None:
            starts.add(span.start)
    for i in starts:
        doc[i].is_sent_start = True
    if len(doc) - 1 not in starts:
        doc[len(doc) - 1].is_sent_start = False
    spans = []
    index = []
    for i, (start, end) in enumerate(targets):
        span = doc.char_span(start, end, label="FINDING", alignment_mode="expand")
        if span is not None:
            spans.append(span)
            index.append(i)
    doc.spans["targets"] = spans
    context(doc)
    graph = doc._.context_graph
    results = [Assertion(None, None) for _ in targets]
    nearest: dict[tuple[int, int], dict[str, tuple[int, str]]] = {}

    def reach(target: tuple[int, int], modifier, distance: int) -> None:
        m_start, m_end = modifier.modifier_span
        cues = nearest.setdefault(target, {})
        if modifier.category not in cues or distance < cues[modifier.category][0]:
            cues[modifier.category] = (distance, doc[m_start:m_end].text)

    for target, modifier in graph.edges:
        m_start, m_end = modifier.modifier_span
        reach((target.start, target.end),
              modifier, target.start - m_end if m_end <= target.start else m_start - target.end)
    for modifier in graph.modifiers:
        if modifier.direction not in ("FORWARD", "BIDIRECTIONAL"):
            continue
        m_start, m_end = modifier.modifier_span
        scope_start, scope_end = modifier.scope_span
        for span in spans:
            if m_start <= span.start < m_end < span.end and scope_start <= m_end < scope_end:
                reach((span.start, span.end), modifier, 0)
    for k, span in zip(index, spans):
        cues = nearest.get((span.start, span.end))
        if cues:
            results[k] = resolve(cues)
    return tuple(results)


def tokenizer_data() -> dict:
    """spaCy's English tokenizer settings as workers/nlp/tokenizer.py reads them."""
    import spacy  # noqa: PLC0415 - only when the data file is written or checked
    from spacy.attrs import ORTH  # noqa: PLC0415 - likewise

    tokenizer = spacy.blank("en").tokenizer
    return {
        "source": f"spaCy {spacy.__version__} blank English tokenizer (MIT licence), written "
                  "by tests/support/reference_context.py",
        # the MIT licence asks that its notice travel with a copy of the data
        "licence": importlib.metadata.distribution("spacy").read_text("LICENSE"),
        "prefix": tokenizer.prefix_search.__self__.pattern,
        "suffix": tokenizer.suffix_search.__self__.pattern,
        "infix": tokenizer.infix_finditer.__self__.pattern,
        "url": tokenizer.url_match.__self__.pattern,
        "specials": {key: [piece[ORTH] for piece in pieces]
                     for key, pieces in sorted(tokenizer.rules.items())},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-tokenizer-data", action="store_true")
    if parser.parse_args().write_tokenizer_data:
        DATA_FILE.write_text(json.dumps(tokenizer_data(), ensure_ascii=False, indent=0) + "\n",
                             encoding="utf-8")


Spans = tuple[tuple[int, int], ...]


def record_texts(path: Path) -> list[str]:
    """The texts of a JSONL bench file: reports, prior reports, sentences, and dev records
    composed as the labeler composes them."""
    from workers.jsonl import read_jsonl  # noqa: PLC0415 - only the corpus builders need these
    from workers.nlp.batch import compose_report  # noqa: PLC0415

    texts = []
    for record in read_jsonl(path):
        for key in ("report", "prior_report", "text"):
            if isinstance(record.get(key), str):
                texts.append(record[key])
        if "findings" in record or "impression" in record:
            texts.append(compose_report(record))
    return texts


def calls(report: str) -> list[tuple[str, Spans, Spans]]:
    """The (text, sentence spans, targets) questions the engine asks ConText about a report:
    each sentence with the vocabulary's mentions in it, as ``assert_targets`` asks; each
    sentence with every word as a target (cues and targets side by side, overlapping, at every
    distance); and the whole report with all its sentences at once (the cross-sentence path)."""
    # imported here: the vocabulary and sections are the engine's, loaded only when asked
    from workers.nlp.sections import parse_report  # noqa: PLC0415
    from workers.nlp.vocabulary import concept_mentions  # noqa: PLC0415

    parsed = parse_report(report)
    sentences = tuple((s.start, s.end) for s in parsed.sentences)
    targets = tuple((s.start + a, s.start + b) for s in parsed.sentences
                    for _, a, b in concept_mentions(s.text.lower()))
    out = []
    for start, end in sentences:
        text = parsed.text[start:end]
        mine = tuple((a - start, b - start) for a, b in targets if start <= a and b <= end)
        if mine:
            out.append((text, ((0, len(text)),), mine))
        words = tuple(m.span() for m in re.finditer(r"\w+", text))
        if words:
            out.append((text, ((0, len(text)),), words))
    if targets:
        out.append((parsed.text, sentences, targets))
    return out


def combinations(count: int, seed: int) -> list[tuple[str, Spans, Spans]]:
    """Made-up texts of cue literals, targets, terminators and punctuation strung together
    (upper-cased at times, cut into 1-4 sentences at random characters), with random words
    and word pairs as targets: every rule against every other, in orders no report has."""
    rng = random.Random(seed)
    literals = [rule[0] for rule in RADIOLOGY_RULES]
    filler = ["effusion", "pneumothorax", "acute", "lung", "the", "is", "and", ",", ".", ";",
              "but", "x-ray", "no", "not", "\n", "  ", "(", ")", "left-sided", "e.g."]
    out = []
    for _ in range(count):
        text = " ".join(rng.choice(literals) if rng.random() < 0.4 else rng.choice(filler)
                        for _ in range(rng.randint(2, 25)))
        if rng.random() < 0.3:
            text = text.upper()
        words = [m.span() for m in re.finditer(r"\w+(?:\s\w+)?", text)]
        targets = tuple(rng.sample(words, min(len(words), rng.randint(1, 8))))
        cuts = sorted(rng.sample(range(len(text)), min(len(text), rng.randint(0, 3))))
        out.append((text, tuple(zip([0, *cuts], [*cuts, len(text)])), targets))
    return out
