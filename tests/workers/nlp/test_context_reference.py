"""The engine's own ConText (workers/nlp/context.py, tokenizer.py, context_graph.py) against
the reference it replaced: spaCy's blank English tokenizer + medspacy's ConText with the same
rules (tests/support/reference_context.py). Tokens and verdicts (category and cue text) must
be identical.

The corpus is the repository's own: bench/negation_sentences.jsonl (with its annotated
targets), the consistency sets we wrote (bench/consistency_*.jsonl, reports and priors), every
sentence written in the tests of workers/nlp, and made-up strings of cues. The shared dev
benchmark (../shared/bench, not ours to ship) is swept too where it is on the machine;
bench/context_differential.py prints the counts.
"""
import ast
import json
from pathlib import Path

import pytest

from tests.support import reference_context as reference
from workers.jsonl import read_jsonl
from workers.nlp import context
from workers.nlp.tokenizer import DATA_FILE, tokenize

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "bench"


def _test_sentences() -> list[str]:
    """String constants of three words or more in the tests of workers/nlp."""
    found = []
    for path in sorted((ROOT / "tests" / "workers" / "nlp").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and len(node.value.split()) >= 3:
                found.append(node.value)
    return found


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    texts = _test_sentences()
    for path in sorted((ROOT / "bench").glob("*.jsonl")):
        texts += reference.record_texts(path)
    return list(dict.fromkeys(texts))


def _differences(questions) -> list:
    """(text, [(target, ours, reference's)]) of every question answered differently."""
    found = []
    for text, sentences, targets in questions:
        ours = context._verdicts(text, sentences, targets)
        theirs = reference.verdicts(text, sentences, targets)
        if ours != theirs:
            found.append((text, [(text[a:b], mine, other) for (a, b), mine, other
                                 in zip(targets, ours, theirs) if mine != other]))
    return found


def test_the_tokenizer_data_is_the_installed_spacys():
    assert json.loads(DATA_FILE.read_text(encoding="utf-8")) == reference.tokenizer_data()


def test_tokens_are_spacys(corpus):
    nlp, _ = reference.pipeline()
    differ = [text for text in corpus
              if [(t.idx, t.idx + len(t), t.idx + len(t) + len(t.whitespace_))
                  for t in nlp.make_doc(text)] != tokenize(text)]
    assert len(corpus) > 1000 and differ == []


def test_tokens_of_odd_strings_are_spacys():
    """Affixes, infixes, special cases spaCy can only see after its cuts, runs of whitespace."""
    texts = ["e.g. (e.g., x)", "a  b\n c \n", " lead", "can't 10a.m. :) (: (-8 :-)", "x-ray,",
             "U.S.A. Dr. Smith", "http://x.org/a-b.", "no\u00a0effusion", "1.5cm 3x4 mm",
             "(:(", "'s'S", "\t\t-\n", "o.O.", "N.B.: 2-3 cm", "...no", "y'all's"]
    nlp, _ = reference.pipeline()
    for text in texts:
        ours = [text[a:b] for a, b, _ in tokenize(text)]
        assert ours == [t.text for t in nlp.make_doc(text)], text


def test_negation_sentences_with_their_annotated_targets():
    questions = [(record["text"], ((0, len(record["text"])),),
                  tuple((t["start"], t["end"]) for t in record["targets"]))
                 for record in read_jsonl(ROOT / "bench" / "negation_sentences.jsonl")]
    assert len(questions) > 200 and _differences(questions) == []


def test_verdicts_on_the_repositorys_texts_are_the_references(corpus):
    questions = [q for text in corpus for q in reference.calls(text)]
    assert len(questions) > 5000 and _differences(questions) == []


def test_verdicts_on_made_up_strings_of_cues_are_the_references():
    assert _differences(reference.combinations(3000, seed=33)) == []


def test_verdicts_on_the_shared_dev_sets_are_the_references():
    if not SHARED.exists():
        pytest.skip("the shared dev benchmark files are not on this machine")
    texts = {}
    for path in sorted(SHARED.glob("*.jsonl")):
        for text in reference.record_texts(path):
            texts.setdefault(text, None)
    questions = [q for text in texts for q in reference.calls(text)]
    assert len(questions) > 20000 and _differences(questions) == []
