"""The curated radiology vocabulary: data files with their sources, and the lookups on them."""
from pathlib import Path

import pytest

from workers.nlp import lexicon

FOLDER = Path(lexicon.__file__).parent
DOCS = Path(__file__).resolve().parents[3] / "docs" / "nlp.md"
FILES = sorted(FOLDER.glob("*.txt"))
OUT_OF_DOMAIN_LISTS = ("outside_chest", "clinical_only", "suggested_only")


def test_every_list_says_what_it_holds_and_where_it_comes_from_and_docs_name_it():
    assert {f.stem for f in FILES} == {*lexicon.RADIOLOGY_LISTS, *OUT_OF_DOMAIN_LISTS,
                                       "partly_shown_organs"}
    docs = DOCS.read_text()
    for path in FILES:
        header = [line for line in path.read_text().splitlines() if line.startswith("#")]
        assert any(line.startswith("# Sources:") for line in header), path.name
        assert path.name in docs, f"docs/nlp.md does not describe {path.name}"
        assert lexicon.terms(path.stem), path.name


@pytest.mark.parametrize("name", OUT_OF_DOMAIN_LISTS)
def test_no_term_is_both_radiology_and_out_of_domain(name):
    radiology = {t for n in lexicon.RADIOLOGY_LISTS for t in lexicon.terms(n)}
    assert lexicon.terms(name) & radiology == set()


@pytest.mark.parametrize("word", ["detected", "Clearly", "lytic", "catheters", "bullae",
                                  "bronchi", "mid-gastric", "pull-through", "cavoatrial",
                                  "esophageal", "redemonstrated"])
def test_radiology_words_in_any_case_plural_or_hyphenated(word):
    assert lexicon.is_radiology_word(word)


@pytest.mark.parametrize("word", ["cirrhosis", "hepatitis", "cancer", "inflammatory",
                                  "migraine", "achalasia", "pneumothor"])
def test_words_that_are_no_radiology_words(word):
    assert not lexicon.is_radiology_word(word)


@pytest.mark.parametrize("word, fragment", [
    ("pneumothor", True), ("mediast", True), ("scler", True), ("Un", True),
    ("pneumothorax", False), ("cirrhosis", False), ("x", False),
])
def test_a_fragment_is_the_start_of_a_longer_radiology_word(word, fragment):
    assert lexicon.is_fragment(word) is fragment


def test_term_spans_find_multiword_terms_longest_first():
    lower = "ng tube tip in the gastric fundus near the gastroesophageal junction."
    found = [lower[a:b] for a, b in lexicon.term_spans(lower)]
    assert "gastric fundus" in found and "gastroesophageal junction" in found
    assert "gastric" not in found
