"""A calibrated flag is never hidden by the combination; what the evidence says about how a
combined figure came about, who set its harm, and which rule removed (or did not remove) it."""
import numpy as np

from workers.combine import CombinationConfig, DetectorOutput, benchmark, combine
from workers.combine.calibration import ProbabilityMap, ScoreCalibration
from workers.combine.config import FilterRule
from workers.types import Detection, Harm

AXES = {"samples": [1, 0, 0], "probe": [0.95, 0.31, 0], "library": [0, 1, 0], "other": [0, 0, 1]}
SAMPLES = "The generator's own samples rarely say this: supported by 4 of 10 samples."
SENTENCES = {0: "Heart size is normal.", 1: "Clear lungs."}


def embed(texts):
    return np.array([AXES["samples" if t == SAMPLES else t] for t in texts], dtype=np.float32)


def radflag(calibrated=True, harm=Harm.HIGH):
    evidence = {"support": 4, "n": 10, "lambda1": 6, "category": "Lungs",
                "calibration": 7 if calibrated else None,
                "calibration_version": 3 if calibrated else None,
                "alpha": 0.1 if calibrated else None,
                "thresholds": "calibration" if calibrated else "default"}
    return Detection(1, 22, 34, "radflag", SAMPLES, harm, 0.5833, evidence=evidence)


def config(rules=(), calibration=None, **weights):
    weights = weights or {"correction": 1, "judge": 1, "radflag": 1, "vrag": 1}
    return CombinationConfig(weights=weights, order=tuple(weights), similarity_threshold=0.8,
                             flag_threshold=0.3, rules=tuple(rules), calibration=calibration)


def outputs(*extra, calibrated=True):
    return [DetectorOutput("correction", []), DetectorOutput("judge", []),
            DetectorOutput("radflag", [radflag(calibrated)]), *extra]


def only(results):
    [result] = [r for r in results if r.detection.sentence_index == 1]
    return result


def test_a_calibrated_flag_stands_where_the_score_is_below_the_threshold():
    result = only(combine(outputs(), config(), embed, SENTENCES))
    evidence = result.detection.evidence
    assert result.detection.confidence < 0.3  # 0.58 after two silent detectors: 0.19
    assert result.flagged and evidence["flagged_by"] == ["radflag"]
    [guarantee] = evidence["calibrated_flags"]
    assert guarantee["text"] == "flagged at λ1 = 6 of 10, calibration v3, α = 0.1"
    assert evidence["filtered_by"] is None


def test_with_the_default_thresholds_radflag_is_one_vote_among_others():
    result = only(combine(outputs(calibrated=False), config(), embed, SENTENCES))
    assert not result.flagged and result.detection.evidence["calibrated_flags"] == []


def test_the_steps_say_how_the_score_came_about_and_who_set_the_harm():
    vrag = DetectorOutput("vrag", [Detection(1, 22, 34, "vrag", "probe", Harm.LOW, 0.8)])
    result = only(combine(outputs(vrag), config(), embed, SENTENCES))
    steps = result.detection.evidence["steps"]
    assert [(s["detector"], s["event"]) for s in steps] == [
        ("radflag", "alone"), ("vrag", "agreed")]
    assert steps[0]["w"] == 0.6667 and steps[0]["after"] == round(0.5833 / 3, 4)
    assert steps[1]["before"] == steps[0]["after"] and steps[1]["own"] == 0.8
    assert steps[1]["after"] == round(0.75 * 0.5833 / 3 + 0.25 * 0.8, 4)
    assert result.detection.harm == Harm.HIGH
    assert result.detection.evidence["harm_set_by"] == "radflag"
    assert result.detection.evidence["member_harms"] == {"radflag": "high", "vrag": "low"}


def test_a_silent_detector_is_a_step_too():
    first = DetectorOutput("correction",
                           [Detection(1, 22, 34, "correction", "library", Harm.LOW, 0.7)])
    results = combine([first, DetectorOutput("judge", [])], config(correction=1, judge=1), embed,
                      SENTENCES)
    steps = only(results).detection.evidence["steps"]
    assert [(s["detector"], s["event"], s["after"]) for s in steps] == [
        ("correction", "first", 0.7), ("judge", "silent", 0.35)]


def test_a_rule_matching_the_calibrated_flag_itself_removes_it_and_says_so():
    rule = FilterRule("Sampling doubts", "pattern", pattern="samples rarely")
    result = only(combine(outputs(), config([rule]), embed, SENTENCES))
    evidence = result.detection.evidence
    assert not result.flagged and evidence["filtered_by"] == "Sampling doubts"
    assert evidence["calibrated_removed"][0]["removed_by"] == "Sampling doubts"


def test_a_rule_matching_only_another_members_words_leaves_the_calibrated_flag():
    probe = DetectorOutput("vrag", [Detection(1, 22, 34, "vrag", "probe", Harm.LOW, 0.95)])
    rule = FilterRule("Probe wording", "pattern", pattern="probe")  # the lead explanation
    result = only(combine(outputs(probe), config([rule]), embed, SENTENCES))
    evidence = result.detection.evidence
    assert result.detection.explanation == "probe"
    assert result.flagged and evidence["flagged_by"] == ["radflag"]
    assert evidence["filtered_by"] is None and evidence["rule_not_applied"] == "Probe wording"


def test_a_detector_outside_the_fold_keeps_its_calibrated_flags():
    weights = {"correction": 1, "judge": 1, "radflag": 0}
    result = only(combine(outputs(), config(**weights), embed, SENTENCES))
    assert result.flagged and result.detection.confidence == 0.0
    assert result.detection.evidence["steps"][0]["event"] == "no_part"


def test_a_calibrated_combination_flags_by_probability_of_error():
    mapping = ProbabilityMap((0.0, 0.15, 0.5), (0.05, 0.4, 0.9), (30, 20, 10))
    calibrated = ScoreCalibration(mapping, 0.35, 0.1, version=2, calibration_id=5)
    probe = DetectorOutput("vrag", [Detection(1, 22, 34, "vrag", "other", Harm.LOW, 0.8)])
    results = combine(outputs(probe, calibrated=False), config(calibration=calibrated), embed,
                      SENTENCES)
    by_member = {r.members[0][0]: r for r in results}
    radflag_item, vrag_item = by_member["radflag"], by_member["vrag"]
    # RadFlag alone: 0.58 / 4 = 0.146 → 5 %; V-RAG alone: 0.8 / 4 = 0.2 → 40 % ≥ 35 %.
    assert radflag_item.detection.evidence["probability"] == 0.05 and not radflag_item.flagged
    assert vrag_item.detection.evidence["probability"] == 0.4 and vrag_item.flagged
    assert vrag_item.detection.evidence["flagged_by"] == ["combination"]
    assert vrag_item.detection.evidence["score_calibration"] == {
        "calibration": 5, "version": 2, "alpha": 0.1, "threshold": 0.35}


def test_any_detector_whose_spec_reads_a_guarantee_is_never_hidden():
    """Calibrated is a property of a detector's spec, not of RadFlag's name."""
    import dataclasses

    from workers.detectors import DETECTORS, register, unregister

    @dataclasses.dataclass
    class ToyEvidence:
        alpha: float

    toy = DETECTORS["judge"].__class__(
        name="calibrated_toy", label="Toy", stage="audit", roles=(), scope="general",
        evidence=ToyEvidence, run=lambda *args: [],
        guarantee=lambda d: {"text": f"α = {d.evidence['alpha']}"})
    flag = Detection(1, 22, 34, "calibrated_toy", "toy", Harm.LOW, 0.2, evidence={"alpha": 0.1})
    register(toy)
    try:
        result = only(combine([DetectorOutput("correction", []), DetectorOutput("judge", []),
                               DetectorOutput("calibrated_toy", [flag])],
                              config(correction=1, judge=1, calibrated_toy=1), embed, SENTENCES))
    finally:
        unregister("calibrated_toy")
    assert result.detection.confidence < 0.3
    assert result.flagged and result.detection.evidence["flagged_by"] == ["calibrated_toy"]
    assert [g["text"] for g in result.detection.evidence["calibrated_flags"]] == ["α = 0.1"]


def test_without_a_site_calibration_the_shipped_benchmark_map_gives_the_figure_not_the_flag():
    """The map shipped from the bundled benchmarks (workers/combine/benchmark.py) reads every
    combined score as a chance of error, labelled as benchmark-calibrated; whether the sentence
    is flagged is still the site threshold's decision."""
    shipped = benchmark.shipped()
    assert shipped is not None and shipped.sentences > 1000
    probe = Detection(1, 22, 34, "vrag", "probe", Harm.MEDIUM, 0.25)
    result = only(combine([DetectorOutput("vrag", [probe])], config(vrag=1), embed, SENTENCES))
    evidence = result.detection.evidence
    assert evidence["probability"] == shipped.probability(result.detection.confidence)
    assert evidence["benchmark_calibration"]["calibrated_on"] == "benchmarks"
    assert evidence["score_calibration"] is None
    assert result.detection.confidence < 0.3 and not result.flagged  # the threshold decides


def test_the_shipped_map_rises_with_the_score_and_never_says_0_or_1():
    mapping = benchmark.shipped().mapping
    assert list(mapping.probabilities) == sorted(mapping.probabilities)
    assert all(0 < p < 1 for p in mapping.probabilities)


def test_a_site_calibration_replaces_the_shipped_map():
    calibration = ScoreCalibration(ProbabilityMap((0.0,), (0.42,), (30,)), None, 0.1, version=4)
    probe = Detection(1, 22, 34, "vrag", "probe", Harm.MEDIUM, 0.25)
    result = only(combine([DetectorOutput("vrag", [probe])], config(calibration=calibration,
                                                                    vrag=1), embed, SENTENCES))
    evidence = result.detection.evidence
    assert evidence["probability"] == 0.42 and evidence["benchmark_calibration"] is None


def test_the_omission_rule_spares_a_detector_whose_flags_are_omissions_by_design():
    # issue 31: a prior finding dropped without a word is the prior checks' finding, not an
    # explanation that only misses a detail; the same words from another detector are removed
    words = "Leaves out nodule: the prior report states it."
    rule = FilterRule("Explanation describes an omission", "omission")
    for detector, kept in (("prior", True), ("judge", False)):
        flag = Detection(1, 22, 34, detector, words, Harm.MEDIUM, 0.9, evidence={})
        results = combine([DetectorOutput(detector, [flag], single_purpose=True)],
                          config([rule], **{detector: 1}), lambda texts: embed(
                              ["other"] * len(texts)), SENTENCES)
        result = only(results)
        assert result.flagged is kept
        assert (result.detection.evidence["filtered_by"] is None) is kept
