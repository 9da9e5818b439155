"""Support by the built-in engine, sentence and report flags, and the detections they make."""
from __future__ import annotations

import pytest

from workers.pipeline import parse_report
from workers.radflag import (
    SentenceInfo,
    SentenceSupport,
    SentenceToScore,
    Thresholds,
    confidence_of,
    default_lambda1,
    flag_report,
    rescale,
    score_support,
)
from workers.radflag.stages import RadFlagInputs, radflag
from workers.radflag.support import SampleVerdict
from workers.types import Harm

CANDIDATE = (
    "INDICATION: Cough, pneumonia?\n"
    "FINDINGS: Heart size is normal. There is a large right pleural effusion. No pneumothorax. "
    "Left lower lobe consolidation. PA and lateral views were obtained.\n"
    "IMPRESSION: Right pleural effusion."
)
SAMPLES = (["FINDINGS: Heart size normal. Small right pleural effusion. No pneumothorax."] * 3
           + ["FINDINGS: Heart is normal. Lungs are clear. No effusion or pneumothorax."] * 7)


def infos(text=CANDIDATE):
    return tuple(
        SentenceInfo(s.index, s.text, s.start, s.end, s.section, s.category, tuple(s.findings))
        for s in parse_report(text)
    )


def test_builtin_support_counts_complete_and_partial_and_skips_non_image_sections():
    sentences = [SentenceToScore(s.index, s.text, s.section) for s in infos()]
    supports = {s.index: s for s in score_support(sentences, SAMPLES)}
    assert 0 not in supports  # the INDICATION is a question, not a claim
    assert supports[1].support == 10 and supports[1].n == 10           # heart size normal
    effusion = supports[2]
    assert (effusion.support, effusion.partial, effusion.complete) == (
        3,
        3,
        0,
    )  # size differs: partial
    assert [v.verdict for v in effusion.verdicts] == ["partial"] * 3 + ["none"] * 7
    assert all(v.reason for v in effusion.verdicts)
    assert supports[4].support == 0  # consolidation nowhere
    assert supports[5].support == 10  # technique line: nothing to contradict
    assert [v.sample for v in supports[4].verdicts] == list(range(10))


def test_flags_detections_and_evidence_with_default_thresholds():
    result = radflag(
        RadFlagInputs(infos(), tuple(SAMPLES), Thresholds(lambda1=4, lambda2=2, n_samples=10))
    )
    outcome = result.outcome
    flagged = {f.index for f in outcome.sentences if f.flagged}
    # The effusion (3 of 10), the consolidation (0) and the impression's effusion (3) are below 4.
    assert flagged == {2, 4, 6} and outcome.flagged_sentences == 3 and outcome.report_flagged
    by_index = {d.sentence_index: d for d in outcome.detections}
    assert set(by_index) == {f.index for f in outcome.sentences if f.flagged}
    consolidation = by_index[4]
    assert consolidation.detector == "radflag"
    assert "supported by 0 of 10 samples" in consolidation.explanation
    assert consolidation.confidence == confidence_of(0, 10) == pytest.approx(11 / 12, abs=1e-4)
    assert consolidation.harm == Harm.MEDIUM
    sentence = infos()[4]
    assert (consolidation.start, consolidation.end) == (sentence.start, sentence.end)
    evidence = consolidation.evidence
    assert evidence["support"] == 0 and evidence["n"] == 10 and evidence["lambda1"] == 4
    assert evidence["category"] == "Lungs" and evidence["calibration"] is None
    assert evidence["thresholds"] == "default" and "No active calibration" in evidence["note"]
    assert evidence["report_flagged"] is True
    assert evidence["lambda2"] == 2 and evidence["flagged_sentences"] == outcome.flagged_sentences
    assert len(evidence["verdicts"]) == 10 and set(evidence["verdicts"][0]) == {
        "sample",
        "verdict",
        "reason",
    }


def test_report_flag_needs_lambda2_flagged_sentences():
    result = radflag(
        RadFlagInputs(infos(), tuple(SAMPLES), Thresholds(lambda1=4, lambda2=5, n_samples=10))
    )
    assert not result.outcome.report_flagged
    assert all(d.evidence["report_flagged"] is False for d in result.outcome.detections)


def support(index, supports, n=10):
    return SentenceSupport(
        index, tuple(SampleVerdict(i, "complete" if i < supports else "none") for i in range(n))
    )


def test_per_category_lambda1_and_the_calibration_named_in_the_evidence():
    sentences = (SentenceInfo(0, "Tube in place.", 0, 14, category="Devices"),
                 SentenceInfo(1, "Small nodule.", 15, 28, category="Lungs",
                              findings=({"observation": "nodule", "status": "present"},)))
    thresholds = Thresholds(lambda1=3, lambda2=1, n_samples=10, lambda1_by_category={"Devices": 6},
                            calibration_id=12, calibration_version=4)
    outcome = flag_report(sentences, [support(0, 5), support(1, 5)], thresholds)
    assert [f.flagged for f in outcome.sentences] == [True, False]  # 5 < 6 (Devices), 5 ≥ 3 (Lungs)
    (detection,) = outcome.detections
    assert detection.evidence["lambda1"] == 6 and detection.evidence["calibration"] == 12
    assert detection.evidence["thresholds"] == "calibration"
    assert "calibration version 4" in detection.evidence["note"]
    assert detection.harm == Harm.VERY_LOW  # no finding in the sentence
    assert outcome.report_flagged


def test_thresholds_for_another_number_of_samples_keep_the_share():
    assert rescale(3, 10, 10) == 3
    assert rescale(3, 10, 5) == 2      # E/5 < 3/10 ⇔ E < 1.5 ⇔ E ≤ 1
    assert rescale(3, 10, 20) == 6
    assert rescale(11, 10, 5) == 6     # n + 1 (flag everything) stays n + 1
    assert default_lambda1(0.3, 10) == 3 and default_lambda1(0.3, 7) == 3
    thresholds = Thresholds(
        lambda1=3, lambda2=2, n_samples=10, calibration_id=1, calibration_version=1
    )
    assert thresholds.lambda1_for("Lungs", 5) == 2
    assert "rescaled" in thresholds.describe(5) and "rescaled" not in thresholds.describe(10)


def test_confidence_grows_as_support_falls():
    values = [confidence_of(e, 10) for e in range(11)]
    assert values == sorted(values, reverse=True)
    assert 0 < values[-1] < values[0] < 1
