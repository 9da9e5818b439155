"""A plain denial of a finding the library states many times and never denies."""
from tests.workers.library.fakes import make_library
from workers.correction import correct
from workers.correction.builtin import never_denied_signals
from workers.rules.denials import MIN_STATED, finding_counts
from workers.study import StudyContext

_STATES = [(f"lib-{n}", "FINDINGS: Aortic calcifications are noted. No pneumothorax.\n"
            "IMPRESSION: No acute cardiopulmonary process.") for n in range(MIN_STATED)]


def _signals(text, reports=_STATES, external_id=None):
    library = make_library(reports)
    ctx = StudyContext("FINDINGS: Heart size is normal. " + text, library=library,
                       external_id=external_id)
    return never_denied_signals(ctx)


def test_a_denial_of_what_the_library_never_denies_is_suspected():
    [(index, signal)] = _signals("Aortic calcifications are not noted.")
    assert index == 1
    assert f"state {MIN_STATED} times and never deny on its own" in signal.explanation


def test_one_denial_in_the_library_or_too_few_statements_keep_it_quiet():
    denied = _STATES + [("lib-x", "FINDINGS: No aortic calcification.")]
    assert _signals("Aortic calcifications are not noted.", denied) == []
    assert _signals("Aortic calcifications are not noted.", _STATES[1:]) == []


def test_the_audited_reports_own_copy_never_vouches_for_it():
    # the library's only denial is the audited report's own copy: it is left out
    own = _STATES + [("own", "FINDINGS: Heart size is normal. Aortic calcifications are not "
                             "noted.")]
    assert _signals("Aortic calcifications are not noted.", own, external_id="other") == []
    assert len(_signals("Aortic calcifications are not noted.", own, external_id="own")) == 1


def test_lists_contrasts_and_findings_that_went_are_not_suspected():
    for text in ("No pneumothorax, effusion or aortic calcification.",
                 "Calcified granulomas are seen; aortic calcifications are not noted.",
                 "Previously seen aortic calcifications have resolved.",
                 "No pneumothorax."):
        assert _signals(text) == [], text


def test_the_counts_are_made_once_per_library_and_the_fix_affirms():
    library = make_library(_STATES)
    assert finding_counts(library) is finding_counts(library)
    result = correct(StudyContext("FINDINGS: Heart size is normal. Aortic calcifications are "
                                  "not noted.", library=library))
    assert result.has_error and result.sentence_index == 1
    assert result.suggestion is not None and "not" not in result.suggestion.split()


def test_a_denial_in_a_library_list_does_not_count_but_one_on_its_own_does():
    in_list = _STATES + [("lib-x", "FINDINGS: No pneumothorax, effusion or aortic "
                                   "calcification.")]
    assert len(_signals("Aortic calcifications are not noted.", in_list)) == 1
    alone = _STATES + [("lib-x", "FINDINGS: No aortic calcification.")]
    assert _signals("Aortic calcifications are not noted.", alone) == []


def test_a_device_is_never_suspected():
    lines = [(f"lib-{n}", "FINDINGS: Right PICC line ends in the SVC. No pneumothorax.")
             for n in range(MIN_STATED)]
    assert _signals("No PICC line is seen.", lines) == []
