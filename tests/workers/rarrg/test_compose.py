"""The built-in composer: radiology order, joined negatives, the impression."""
from __future__ import annotations

from workers.rarrg.compose import compose_report, truncate_to_words
from workers.rarrg.retrieval import ScoredPhrase


def test_phrases_come_out_in_radiology_order():
    report = compose_report(["no pneumothorax", "rib fracture", "small left pleural effusion",
                             "left lower lobe atelectasis", "mild cardiomegaly",
                             "endotracheal tube", "no pleural thickening"])
    findings, impression = report.split("\n")
    order = [findings.index(text) for text in ("Endotracheal tube", "Mild cardiomegaly",
                                               "Left lower lobe atelectasis",
                                               "Small left pleural effusion", "Rib fracture")]
    assert order == sorted(order), findings
    assert "No pneumothorax or pleural thickening." in findings
    assert findings.index("Small left pleural effusion") < findings.index("No pneumothorax")
    assert impression.startswith("IMPRESSION: ")
    assert "Endotracheal tube" not in impression and "Left lower lobe atelectasis" in impression


def test_a_normal_set_of_phrases_gives_a_normal_impression():
    report = compose_report([ScoredPhrase("normal heart size", 0.9),
                             ScoredPhrase("clear lungs", 0.8),
                             ScoredPhrase("no pleural effusion", 0.8),
                             ScoredPhrase("no acute cardiopulmonary abnormality", 0.7)])
    assert report == ("FINDINGS: Normal heart size. Clear lungs. No pleural effusion.\n"
                      "IMPRESSION: No acute cardiopulmonary abnormality.")


def test_the_word_budget_keeps_the_leading_phrases():
    assert truncate_to_words(["a b", "c d", "e f"], 6) == ["a b", "c d"]
    assert truncate_to_words(["a very long phrase indeed"], 2) == ["a very long phrase indeed"]
