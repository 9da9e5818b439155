"""One answer: ``context.assert_targets`` (the findings' pass over a report) and
``polarity.assertion_at`` / ``is_negated`` (the judge's, the correction's and the library's
question about one span of one sentence) read every span alike (issue 31).

Over every sentence of the dev sets, each mention of the vocabulary is read both ways and the
verdicts (category and cue) must be the same; the findings' status is absent exactly where
``is_negated`` says so.
"""
from pathlib import Path

import pytest

from workers.jsonl import read_jsonl
from workers.nlp import extract_findings
from workers.nlp.batch import compose_report
from workers.nlp.context import NEGATED, assert_targets
from workers.nlp.polarity import assertion_at, is_negated
from workers.nlp.sections import parse_report
from workers.nlp.vocabulary import concept_mentions

BENCH = Path(__file__).resolve().parents[4] / "shared" / "bench"
DEV_SETS = ("iu_findings_dev.jsonl", "mimic_style_findings.jsonl", "iu_corrupt_dev.jsonl",
            "mimic_style_corrupt_x1.jsonl", "mimic_style_corrupt_x3.jsonl")


@pytest.fixture(scope="module")
def dev_reports() -> list[str]:
    if not (BENCH / DEV_SETS[0]).exists():
        pytest.skip("the shared dev benchmark files are not on this machine")
    reports = {}
    for name in DEV_SETS:
        for record in read_jsonl(BENCH / name):
            report = compose_report(record)
            reports.setdefault(report, None)
    return list(reports)


def _mentions(report: str):
    parsed = parse_report(report)
    mentions = [(s, a, b) for s in parsed.sentences for _, a, b in concept_mentions(s.text.lower())]
    verdicts = assert_targets(parsed.text, [(s.start, s.end) for s in parsed.sentences],
                              [(s.start + a, s.start + b) for s, a, b in mentions])
    return parsed, mentions, verdicts


def test_every_mention_of_the_dev_sets_gets_one_answer(dev_reports):
    disagree = []
    for report in dev_reports:
        _, mentions, verdicts = _mentions(report)
        for (sentence, a, b), verdict in zip(mentions, verdicts):
            polarity = assertion_at(sentence.text, a, b)
            if (polarity.category, polarity.cue) != (verdict.category, verdict.cue) \
                    or is_negated(sentence.text, a, b) != (verdict.category == NEGATED):
                disagree.append((sentence.text, sentence.text[a:b], verdict, polarity))
    assert disagree == []


def test_the_findings_are_absent_where_is_negated_says_so(dev_reports):
    disagree = []
    for report in dev_reports[::5]:
        parsed = parse_report(report)
        for f in extract_findings(parsed):
            if f.implied:
                continue
            sentence = parsed.sentences[f.sentence_index]
            start, end = f.start - sentence.start, f.end - sentence.start
            if (f.status == "absent") != is_negated(sentence.text, start, end):
                disagree.append((sentence.text, f.observation, f.status))
    assert disagree == []


@pytest.mark.parametrize("sentence, span, negated", [
    # a cue that takes in the span's first words still reaches it ("no acute" of "acute ...")
    ("No acute cardiopulmonary abnormality.", "acute cardiopulmonary abnormality", True),
    ("No focal consolidation.", "focal consolidation", True),
    # the span is read whole, not at its last word: a bare "not" reaches the first words of
    # "type calcification" (four words on), and "remains" inside the span ends no denial of it
    ("Not XXXX showing benign type calcification, consider followup.", "type calcification",
     True),
    ("No cardiac silhouette remains enlarged.", "cardiac silhouette remains enlarged", True),
    ("The cardiac silhouette remains enlarged.", "cardiac silhouette remains enlarged", False),
])
def test_a_span_reads_the_same_alone_and_in_its_report(sentence, span, negated):
    start = sentence.lower().index(span.lower())
    end = start + len(span)
    (alone,) = assert_targets(sentence, [(0, len(sentence))], [(start, end)])
    report = "FINDINGS: Heart size is normal. " + sentence + " No pneumothorax."
    offset = report.index(sentence)
    parsed = parse_report(report)
    (in_report,) = assert_targets(report, [(s.start, s.end) for s in parsed.sentences],
                                  [(offset + start, offset + end)])
    assert is_negated(sentence, start, end) is negated
    assert (alone.category == NEGATED) is negated
    assert in_report == alone
