"""concept_mentions scans word starts and tries one bucket of the concept alternation at each;
it must find exactly what the alternation's ``finditer`` finds (same concepts, same spans),
and mentions_concept must say whether its ``search`` finds one."""
import json
from pathlib import Path

import pytest

from workers.nlp.sections import parse_report
from workers.nlp.vocabulary import concept_alternation, concept_mentions, mentions_concept

BENCH = Path(__file__).resolve().parents[4] / "shared" / "bench"

CRAFTED = [
    "", "no", "pneumothorax", "no pneumothorax.", "left-sided pleural effusion",
    "pre-pneumothorax", "pneumothoraces and effusions", "subcutaneous emphysema; emphysema",
    "pericardial effusion/effusion", "1. cardiomegaly 2. edema", "ng tube", "nodule1",
    "xxxx opacity xxxx", "mild cardiomegaly, small bilateral pleural effusions, no edema",
    "émphysema", "right-sided pneumothorax-like lucency", "atelectasis.atelectasis",
]


def finditer(lower: str):
    regex, concept_of = concept_alternation()
    return tuple((concept_of[m.lastgroup], m.start(), m.end()) for m in regex.finditer(lower))


@pytest.mark.parametrize("text", CRAFTED)
def test_crafted_texts(text):
    assert concept_mentions(text) == finditer(text)


@pytest.mark.parametrize("text", [*CRAFTED, "No Pneumothorax", "Pneumothorax", "no -edema"])
def test_mentions_concept_is_a_search_of_the_alternation(text):
    assert mentions_concept(text) is (concept_alternation()[0].search(text) is not None)


def test_every_sentence_and_report_of_the_dev_files():
    files = [BENCH / "iu_findings_dev.jsonl", BENCH / "mimic_style_findings.jsonl"]
    if not all(f.is_file() for f in files):
        pytest.skip("the shared dev benchmark files are not on this machine")
    texts = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            report = json.loads(line)["report"]
            texts.append(report.lower())
            texts += [s.text.lower() for s in parse_report(report).sentences]
    found = [concept_mentions(t) for t in texts]
    assert found == [finditer(t) for t in texts]
    assert [mentions_concept(t) for t in texts] == [bool(f) for f in found]
    assert sum(map(len, found)) > 1000  # the files do name findings
