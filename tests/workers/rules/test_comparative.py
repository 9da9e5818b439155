"""Comparison wording in a study without a prior exam."""
from workers.rules import comparative
from workers.study import StudyContext

REPORT = ("FINDINGS: Stable mild cardiomegaly. No pleural effusion. Old healed rib fracture.\n"
          "IMPRESSION: No change since the prior study.")


def test_comparisons_are_flagged_only_when_the_study_has_no_prior():
    assert comparative.detect(StudyContext(REPORT, has_prior=True)) == []
    assert comparative.detect(StudyContext(REPORT, has_prior=None)) == []
    found = comparative.detect(StudyContext(REPORT, has_prior=False))
    by_sentence = {d.sentence_index: d for d in found}
    assert set(by_sentence) == {0, 2, 3}
    stable = by_sentence[0]
    assert stable.evidence == {"terms": ["stable"], "has_prior": False,
                               "suggestion_reason": comparative.REASON}
    assert stable.suggestion == "Mild cardiomegaly."
    assert stable.confidence > by_sentence[2].confidence  # "old" only sometimes compares
    assert by_sentence[3].suggestion == ""  # nothing left once the comparison goes


def test_it_looks_at_the_sentences_with_comparative_wording_only_without_a_prior():
    assert comparative.compared_sentences(StudyContext(REPORT, has_prior=False)) == {0, 2, 3}
    assert comparative.compared_sentences(StudyContext(REPORT, has_prior=True)) == frozenset()


def test_every_suggestion_says_why_it_goes_this_way():
    found = comparative.detect(StudyContext(REPORT, has_prior=False))
    assert all(d.evidence["suggestion_reason"] for d in found if d.suggestion is not None)
    assert "no prior exam" in comparative.REASON
