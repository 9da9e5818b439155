"""Both sentences of a pair flagged, each naming the other; no fix deletes the finding; the
pair reaches the review page through the system combination."""
from __future__ import annotations

import dataclasses

from tests.workers.library.fakes import HashEmbedder
from workers.audit.text import audit_text
from workers.combine import CombinationConfig, DetectorOutput, combine
from workers.contradiction import detections, undoes_paired_finding
from workers.detectors import DETECTORS, in_stage
from workers.detectors.evidence import ContradictionEvidence
from workers.library.vectors import SentenceVectors
from workers.nlp import extract_findings
from workers.study.context import StudyContext

FIVE = ("FINDINGS: Heart size is normal. There is a large right pleural effusion. No "
        "pneumothorax. IMPRESSION: No acute cardiopulmonary process. Mild cardiomegaly.")
HEART, EFFUSION, IMPRESSION_NORMAL, CARDIOMEGALY = 0, 1, 3, 4


def by_sentence(text: str) -> dict[int, list]:
    out: dict[int, list] = {}
    for d in detections(StudyContext(text)):
        out.setdefault(d.sentence_index, []).append(d)
    return out


def test_both_sentences_of_each_pair_are_flagged_each_naming_the_other():
    found = by_sentence(FIVE)
    assert sorted(found) == [HEART, EFFUSION, IMPRESSION_NORMAL, CARDIOMEGALY]
    (heart,) = found[HEART]
    (cardiomegaly,) = found[CARDIOMEGALY]
    (effusion,) = found[EFFUSION]
    (summary,) = found[IMPRESSION_NORMAL]
    assert "\u201cMild cardiomegaly.\u201d" in heart.explanation
    assert "\u201cHeart size is normal.\u201d" in cardiomegaly.explanation
    assert "\u201cNo acute cardiopulmonary process.\u201d" in effusion.explanation
    assert "\u201cThere is a large right pleural effusion.\u201d" in summary.explanation
    assert heart.evidence["other_sentence_index"] == CARDIOMEGALY
    assert summary.evidence["other_sentence"] == "There is a large right pleural effusion."


def test_the_normal_side_is_doubted_and_says_why():
    found = by_sentence(FIVE)
    (heart,), (cardiomegaly,) = found[HEART], found[CARDIOMEGALY]
    (effusion,), (summary,) = found[EFFUSION], found[IMPRESSION_NORMAL]
    assert heart.evidence["doubted"] and summary.evidence["doubted"]
    assert not cardiomegaly.evidence["doubted"] and not effusion.evidence["doubted"]
    assert "This sentence is the one doubted" in summary.explanation
    assert "never removed to agree" in summary.explanation
    assert "The other sentence is the one doubted" in effusion.explanation
    assert summary.evidence["kind"] == "global_normal" and heart.evidence["kind"] == "heart_size"


def test_only_the_doubted_normal_impression_is_offered_aligned_with_the_finding():
    found = by_sentence(FIVE)
    (summary,) = found[IMPRESSION_NORMAL]
    assert summary.suggestion == "Large right pleural effusion."
    assert "aligned with the finding" in summary.evidence["suggestion_reason"]
    # the positive sides are never rewritten; a normal statement among the findings is the
    # radiologist's to reword
    for index in (HEART, EFFUSION, CARDIOMEGALY):
        assert [d.suggestion for d in found[index]] == [None]
        assert [d.evidence["suggestion_reason"] for d in found[index]] == [None]
    (finding_side,) = by_sentence("IMPRESSION: Small right pneumothorax. FINDINGS: No acute "
                                  "cardiopulmonary process.")[1]
    assert finding_side.suggestion is None


def test_the_harm_of_the_more_harmful_side():
    found = by_sentence(FIVE)
    # a wrongly denied effusion (medium) outweighs a wrongly stated one (medium), and a
    # pneumothorax's (high) outweighs the denial's
    assert found[EFFUSION][0].harm.value == found[IMPRESSION_NORMAL][0].harm.value == "medium"
    (a,), (b,) = by_sentence("FINDINGS: No pneumothorax. IMPRESSION: Small right "
                             "pneumothorax.").values()
    assert a.harm.value == b.harm.value == "high"


def test_the_evidence_is_the_declared_dataclass():
    spec = DETECTORS["contradiction"]
    assert spec.evidence is ContradictionEvidence and spec.single_purpose and spec.roles == ()
    assert spec in in_stage("audit")
    for d in detections(StudyContext(FIVE)):
        assert set(d.evidence) == {f.name for f in dataclasses.fields(ContradictionEvidence)}
        ContradictionEvidence(**d.evidence)


def test_a_suggestion_that_removes_or_negates_the_paired_finding_is_caught():
    ctx = StudyContext(FIVE)
    assert undoes_paired_finding(ctx, EFFUSION, "There is no large right pleural effusion.")
    assert undoes_paired_finding(ctx, EFFUSION, "")
    assert undoes_paired_finding(ctx, EFFUSION, "There is a small right pleural effusion.") \
        is None
    assert undoes_paired_finding(ctx, EFFUSION, None) is None
    # the doubted normal side may be aligned with the finding
    assert undoes_paired_finding(ctx, IMPRESSION_NORMAL, "Large right pleural effusion.") \
        is None


def _negates_the_effusion(suggestion: str | None) -> bool:
    if suggestion is None:
        return False
    kept = [f for f in extract_findings(suggestion)
            if f.observation == "pleural effusion" and f.status != "absent"]
    return not kept


def test_the_audit_flags_the_pairs_and_no_suggestion_undoes_the_effusion():
    audit = audit_text(FIVE)
    raw = [d for ds in audit.detections.values() for d in ds]
    assert not [d for d in raw if d.sentence_index == EFFUSION
                and _negates_the_effusion(d.suggestion)]
    results = combine(audit.outputs(), CombinationConfig(order=tuple(DETECTORS)),
                      SentenceVectors(HashEmbedder()).embed,
                      {s.index: s.text for s in audit.context.parsed.sentences})
    flagged = {r.detection.sentence_index for r in results if r.flagged}
    assert {HEART, EFFUSION, IMPRESSION_NORMAL, CARDIOMEGALY} <= flagged
    assert not [r for r in results if r.detection.sentence_index == EFFUSION
                and _negates_the_effusion(r.detection.suggestion)]
    correction = next(d for d in audit.detections["correction"]
                      if d.sentence_index == EFFUSION)
    correct = correction.evidence["stages"]["correct"]
    # no automatic fix, and no reading that removes the finding
    assert correction.suggestion is None
    assert correct["method"] == "two_readings"
    assert "other" not in {r["choice"] for r in correction.evidence["readings"]}


def test_a_pair_alone_is_flagged_even_when_the_image_detectors_looked_and_said_nothing():
    text = "FINDINGS: Heart size is normal. IMPRESSION: Mild cardiomegaly."
    audit = audit_text(text)
    silent = [DetectorOutput(name, []) for name in ("radflag", "vrag", "rarrg")]
    sentences = {s.index: s.text for s in audit.context.parsed.sentences}
    embed = SentenceVectors(HashEmbedder()).embed
    for outputs in (audit.outputs(), audit.outputs() + silent):
        results = combine(outputs, CombinationConfig(order=tuple(DETECTORS)), embed, sentences)
        assert {r.detection.sentence_index for r in results if r.flagged} == {0, 1}
