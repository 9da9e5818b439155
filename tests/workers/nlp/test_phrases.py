"""Key phrases and comparative wording."""
import pytest

from workers.nlp.phrases import (
    COMPARATIVE_TERMS,
    find_comparisons,
    key_phrases,
    remove_comparisons,
)


def test_one_phrase_per_finding_without_comparisons():
    report = ("FINDINGS: Heart size is normal. There is a small left pleural effusion, unchanged "
              "from prior. Stable right lower lobe opacity. No pneumothorax. Again noted is "
              "bibasilar atelectasis.\nIMPRESSION: Mild cardiomegaly, improved.")
    phrases = key_phrases(report)
    assert phrases == ["normal heart size", "small left pleural effusion",
                       "right lower lobe opacity", "no pneumothorax", "bibasilar atelectasis",
                       "mild cardiomegaly"]
    for phrase in phrases:
        assert not find_comparisons(phrase)


def test_uncertain_findings_are_marked_possible():
    assert key_phrases("Opacity may represent pneumonia.") == ["opacity", "possible pneumonia"]


@pytest.mark.parametrize("term", ["change", "changed", "unchanged", "prior", "previous",
                                  "stable", "interval", "again", "improved", "worsened",
                                  "increased", "decreased", "new", "resolved", "persistent"])
def test_comparative_terms_include_ra_rrg_keywords(term):
    assert term in COMPARATIVE_TERMS
    assert find_comparisons(f"The finding is {term} here.")


def test_find_comparisons_spans():
    sentence = "Pleural thickening, unchanged from prior."
    assert find_comparisons(sentence) == [(20, 29, "unchanged"), (35, 40, "prior")]
    assert find_comparisons("Small left pleural effusion.") == []


@pytest.mark.parametrize("text, cleaned", [
    ("There is biapical pleural thickening, unchanged from prior.",
     "There is biapical pleural thickening."),
    ("Stable mild cardiomegaly.", "Mild cardiomegaly."),
    ("Interval improvement in left base consolidation compared to the prior study.",
     "Left base consolidation."),
    ("A small effusion is again noted.", "A small effusion."),
    ("Heart size is normal.", "Heart size is normal."),
])
def test_remove_comparisons(text, cleaned):
    assert remove_comparisons(text) == cleaned
