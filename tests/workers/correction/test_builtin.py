"""The three stages with the rule engine: detect, localize, correct, on reports made to show
each kind of error, with a small reference library."""
import pytest

from tests.workers.library.fakes import make_library
from workers.correction import correct
from workers.correction.builtin import score_sentences
from workers.rules.checks import run_checks
from workers.study import StudyContext

SOUND = ("FINDINGS: Heart size is normal. There is no focal airspace consolidation. No pleural "
         "effusion or pneumothorax.\nIMPRESSION: No acute cardiopulmonary abnormality.")


@pytest.fixture(scope="module")
def library():
    return make_library()


def run(text, library, **kwargs):
    return correct(StudyContext(text, library=library, **kwargs))


def test_a_sound_report_has_no_error(library):
    result = run(SOUND, library)
    assert not result.has_error and result.detections == [] and result.corrected_report is None


def test_a_lost_negation_is_found_but_not_negated_to_agree_with_the_impression(library):
    # the only other sentence that speaks of it is the normal impression: with text alone the
    # impression is the doubted side (workers.contradiction), so the finding is not negated
    text = SOUND.replace("There is no focal airspace consolidation.",
                         "There is focal airspace consolidation.")
    result = run(text, library)
    assert result.has_error and result.sentence_index == 1
    assert result.suggestion is None and result.corrected_report is None
    [detection] = result.detections
    correct = detection.evidence["stages"]["correct"]
    assert correct["method"] == "two_readings" and "sentence 4 contradicts" in correct["detail"] \
        or "sentence 4 contradicts" in detection.evidence["suggestion_reason"]
    assert detection.harm.value == "medium"


def test_a_substituted_disease_is_replaced_by_the_librarys_wording(library):
    text = SOUND.replace("No pleural effusion or pneumothorax.",
                         "No pleural effusion or cirrhosis.")
    result = run(text, library)
    assert result.sentence_index == 2
    assert result.suggestion == "No pleural effusion or pneumothorax."
    assert result.detections[0].evidence["stages"]["correct"]["method"] == "library_wording"


def test_a_side_conflict_is_flagged_with_both_readings_and_corrected_neither_way(library):
    # issue 31: the text cannot say which side is right, so the swap is a reading offered
    # beside keeping the sentence, never made automatically (the detailed finding may be true)
    text = "FINDINGS: Left lower lobe consolidation.\nIMPRESSION: Right lower lobe pneumonia."
    result = run(text, library)
    assert result.has_error
    assert result.suggestion is None and result.corrected_report is None
    readings = result.detections[0].evidence["readings"]
    assert [r["choice"] for r in readings] == ["keep", "other"]
    assert readings[1]["text"] in ("Right lower lobe consolidation.", "Left lower lobe pneumonia.")
    assert "neither is changed automatically" in result.detections[0].evidence["suggestion_reason"]


def test_sides_that_disagree_rewrite_neither_the_findings_nor_the_impression(library):
    # issue 31: the correction rewrote the detailed FINDINGS sentence to match the impression
    text = ("FINDINGS: There is a moderate left pleural effusion. Heart size is normal.\n"
            "IMPRESSION: Small right pleural effusion.")
    result = run(text, library)
    assert result.corrected_report is None
    assert all(d.suggestion is None for d in result.detections)


def test_the_detection_carries_internal_and_external_retrieval(library):
    text = SOUND.replace("No pleural effusion or pneumothorax.",
                         "Pleural effusion or pneumothorax.")
    [detection] = run(text, library, external_id="ref-4").detections
    evidence = detection.evidence
    assert {"original", "suggestion", "internal", "neighbours", "stages"} <= set(evidence)
    assert evidence["original"] == "Pleural effusion or pneumothorax."
    assert evidence["suggestion"] == "No pleural effusion or pneumothorax."
    # internal retrieval: the report's own graph as phrases, those of the sentence first
    assert evidence["internal"][0] == "pleural effusion" and "pneumothorax" in evidence["internal"]
    neighbours = [n["external_id"] for n in evidence["neighbours"]]
    assert neighbours and "ref-4" not in neighbours  # never the report's own id
    assert set(evidence["neighbours"][0]) == {"reference_id", "external_id", "similarity",
                                              "excerpt"}


def test_an_affirmed_or_list_without_a_hedge_is_suspected_without_a_library():
    text = "FINDINGS: Consolidation, pleural effusion or pneumothorax. Heart size is normal."
    ctx = StudyContext(text)
    [best, *_] = score_sentences(ctx, run_checks(ctx))
    assert best.index == 0 and [s.kind for s in best.signals] == ["disjunction"]
    hedged = StudyContext("FINDINGS: Possible consolidation or atelectasis.")
    assert score_sentences(hedged, run_checks(hedged)) == []
