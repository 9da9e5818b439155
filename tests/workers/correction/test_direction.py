"""Safe suggestions: a fix never deletes or negates a finding a sentence states to agree with a
summary; every suggestion says why it goes its way (workers/correction/direction.py)."""
import json
from pathlib import Path

import pytest

from tests.workers.library.fakes import HashEmbedder, make_library
from workers.audit import batch
from workers.audit.text import audit_text
from workers.combine import CombinationConfig
from workers.correction import correct
from workers.correction.direction import judge_direction, lost_findings
from workers.library.records import read_jsonl_reports
from workers.library.text import LibraryEntry, TextLibrary
from workers.library.vectors import SentenceVectors
from workers.nlp import extract_findings
from workers.study import StudyContext

DANGEROUS = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. No "
             "pneumothorax.\nIMPRESSION: No acute cardiopulmonary process. Mild cardiomegaly.")
EFFUSION = 1
SUMMARY = 3


def _states_effusion(text: str) -> bool:
    return any(f.observation == "pleural effusion" and f.status == "present"
               for f in extract_findings(text))


def test_the_effusion_is_never_negated_to_agree_with_a_normal_impression():
    audit = audit_text(DANGEROUS)
    for detections in audit.detections.values():
        for d in detections:
            if d.sentence_index == EFFUSION and d.suggestion is not None:
                assert _states_effusion(d.suggestion), d
    [fix] = [d for d in audit.detections["correction"] if d.sentence_index == EFFUSION]
    assert fix.suggestion is None  # no automatic replacement
    readings = {r["choice"]: r for r in fix.evidence["readings"]}
    assert readings["keep"]["text"] == "There is a large right pleural effusion."
    # the summary is aligned with the detailed finding, not the other way round
    assert readings["align"]["sentence"] == SUMMARY
    assert _states_effusion(readings["align"]["text"])
    # against a contradicting normal statement the effusion's removal is not even offered
    assert "other" not in readings
    assert "summary" in fix.evidence["suggestion_reason"]


def test_nor_through_the_combination():
    embedder = HashEmbedder()
    library = make_library(embedder=embedder)
    [line] = batch.audit_records([{"id": "x", "report": DANGEROUS}], library=library,
                                 config=CombinationConfig(), embed=library.sentence_vectors.embed)
    for d in line["detections"]:
        if d["sentence_index"] == EFFUSION and d["suggestion"] is not None:
            assert _states_effusion(d["suggestion"])
    if line["corrected_report"] is not None:
        assert "There is a large right pleural effusion." in line["corrected_report"]


def test_a_summary_is_aligned_with_the_detailed_findings():
    text = "FINDINGS: No pleural effusion. Heart size is normal.\nIMPRESSION: Pleural effusion."
    result = correct(StudyContext(text))
    assert result.has_error and result.sentence_index == 2
    assert not _states_effusion(result.suggestion)
    reason = result.detections[0].evidence["suggestion_reason"]
    assert "sentence 1" in reason and "findings" in reason


def test_a_detailed_denial_of_the_same_finding_is_a_reason():
    ctx = StudyContext("FINDINGS: There is a right pleural effusion. No right pleural "
                       "effusion.\nIMPRESSION: Normal chest.")
    verdict = judge_direction(ctx, 0, "There is no right pleural effusion.", related=1)
    assert verdict.allowed and verdict.basis == "detailed_text"


def test_a_normal_statement_or_the_library_alone_is_no_reason():
    ctx = StudyContext(DANGEROUS)
    verdict = judge_direction(ctx, EFFUSION, "There is no large right pleural effusion.",
                              related=SUMMARY)
    assert not verdict.allowed and verdict.basis == "none"
    # a library's denial wording does not outweigh a described finding ("large")
    verdict = judge_direction(ctx, EFFUSION, "There is no large right pleural effusion.",
                              denial_wording=("there is no large right pleural effusion", 5))
    assert not verdict.allowed


def test_a_template_that_lost_its_no_may_take_the_libraries_denial():
    ctx = StudyContext("FINDINGS: Heart size is normal. There is focal airspace "
                       "consolidation.\nIMPRESSION: No acute cardiopulmonary abnormality.")
    fix = "There is no focal airspace consolidation."
    assert not judge_direction(ctx, 1, fix).allowed
    verdict = judge_direction(ctx, 1, fix, denial_wording=(fix.lower(), 3))
    assert verdict.allowed and verdict.basis == "denial_wording"


def test_the_words_found_wrong_may_go_but_not_the_finding_beside_them():
    ctx = StudyContext("FINDINGS: Large left pleural effusion and cirrhosis.")
    sentence = ctx.sentence(0).text
    start = sentence.index("cirrhosis")
    span = (start, start + len("cirrhosis"))
    assert judge_direction(ctx, 0, "Large left pleural effusion.", own_span=span).allowed
    assert not judge_direction(ctx, 0, "", own_span=span).allowed  # the whole sentence


def test_lost_findings_reads_negation_and_deletion():
    ctx = StudyContext(DANGEROUS)
    assert [f.observation for f in lost_findings(ctx, EFFUSION, "")] == ["pleural effusion"]
    assert lost_findings(ctx, EFFUSION, "There is a large right pleural effusion, stable.") == []
    assert lost_findings(ctx, EFFUSION, "No pleural effusion.")


# --- the rule over the dev corpora ----------------------------------------------------------

BENCH = Path("/work/shared/bench")
SAMPLE = 60


@pytest.fixture(scope="module")
def iu_library():
    reference = BENCH / "iu_findings_dev.jsonl"
    if not reference.exists():
        pytest.skip("the shared dev benchmark files are not on this machine")
    entries = [LibraryEntry(i, r.external_id, r.report)
               for i, r in enumerate(read_jsonl_reports(reference), 1)]
    return TextLibrary.build(entries, SentenceVectors(HashEmbedder()))


@pytest.mark.parametrize("name", ["mimic_style_corrupt_x1.jsonl", "mimic_style_corrupt_x3.jsonl",
                                  "iu_corrupt_dev.jsonl"])
def test_no_suggestion_deletes_a_finding_without_the_reports_own_reason(name, iu_library):
    """Over dev reports: a suggestion that leaves a stated finding absent always rests on the
    sentence's own words, the report's detailed text or a bare template's library denial;
    every suggestion carries its reason."""
    lines = (BENCH / name).read_text().splitlines()[:SAMPLE]
    checked = 0
    for line in lines:
        record = json.loads(line)
        ctx = StudyContext(record["report"], library=iu_library, external_id=record["id"])
        for d in correct(ctx).detections:
            evidence = d.evidence
            if d.suggestion is None:
                assert evidence["readings"] and evidence["suggestion_reason"]
                continue
            assert evidence["suggestion_reason"]
            if lost_findings(ctx, d.sentence_index, d.suggestion):
                basis = evidence["stages"]["correct"]["basis"]
                assert set(basis.split("+")) <= {"own_words", "detailed_text",
                                                 "denial_wording"}, (record["id"], d)
            checked += 1
    assert checked > 0
