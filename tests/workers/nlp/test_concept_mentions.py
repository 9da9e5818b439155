"""concept_mentions scans word starts and tries one bucket of the concept alternation at each;
it must find exactly what the alternation's ``finditer`` finds (same concepts, same spans),
mentions_concept must say whether its ``search`` finds one, and is_concept_form whether its
``fullmatch`` does."""
import json
from pathlib import Path

import pytest

from workers.nlp.sections import parse_report
from workers.nlp.vocabulary import (
    concept_alternation,
    concept_mentions,
    is_concept_form,
    mentions_concept,
)

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


@pytest.mark.parametrize("text", [*CRAFTED, "edema", "edemas", "effusions", "ng", "pleural",
                                  "pleural effusion", "-edema", "x", "pneumothorax."])
def test_is_concept_form_is_a_fullmatch_of_the_alternation(text):
    assert is_concept_form(text) is (concept_alternation()[0].fullmatch(text) is not None)


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
    # every word, and every finding's words, as the restoration asks about them
    words = {w for t in texts for w in t.split()} | {t[a:b] for t, f in zip(texts, found)
                                                     for _, a, b in f}
    whole = [w for w in words if concept_alternation()[0].fullmatch(w)]
    assert [w for w in words if is_concept_form(w)] == whole
    assert len(whole) > 100
