"""The side panel and the API explain a flag's one confidence: the calibrated probability or
the score named as such, each member's own figure, why they differ, the harm and who set it,
the guarantee of a calibrated flag, and a site rule that removed one."""
import re
from html import unescape

import numpy as np
import pytest

from radreview.review.models import Detection
from radreview.review.services import store_detections
from tests import factories
from tests.web.review import factories as rf
from workers.combine import CombinationConfig, DetectorOutput, combine
from workers.combine.calibration import ProbabilityMap, ScoreCalibration
from workers.combine.config import FilterRule
from workers.types import Detection as Found
from workers.types import Harm

pytestmark = pytest.mark.django_db

REPORT = "FINDINGS: Heart size is normal. Clear lungs. No pleural effusion."
CLEAR, EFFUSION = 1, 2
SAMPLES_SAY = "The generator's own samples rarely say this: supported by 4 of 10 samples."
VECTORS = {SAMPLES_SAY: [1, 0], "Similar images show an opacity.": [0.9, 0.44],
           "The library never words it so.": [0, 1]}


def embed(texts):
    return np.array([VECTORS[t] for t in texts], dtype=np.float32)


def radflag_on(report, index, *, calibrated=True):
    sentence = report.sentences.get(index=index)
    return Found(index, sentence.start, sentence.end, "radflag", SAMPLES_SAY, Harm.LOW, 0.5833,
                 evidence={"support": 4, "n": 10, "lambda1": 6, "category": "Lungs",
                           "calibration": 7 if calibrated else None,
                           "calibration_version": 3 if calibrated else None,
                           "alpha": 0.1 if calibrated else None,
                           "thresholds": "calibration" if calibrated else "default"})


def combined_study(found, *, rules=(), calibration=None, uploaded_by=None):
    """A study whose raw detections ``found`` were combined by workers.combine as the combine
    stage does, and stored with their sources."""
    study = factories.make_study(uploaded_by=uploaded_by)
    report = factories.make_report(study, REPORT)
    by_detector = {}
    for detection in found(report):
        by_detector.setdefault(detection.detector, []).append(detection)
    rows = {name: store_detections(report, items) for name, items in by_detector.items()}
    weights = {"correction": 1, "judge": 1, "radflag": 1, "vrag": 1}
    config = CombinationConfig(weights=weights, order=tuple(weights), similarity_threshold=0.8,
                               flag_threshold=0.3, rules=tuple(rules), calibration=calibration)
    outputs = [DetectorOutput(name, by_detector.get(name, [])) for name in weights]
    texts = dict(report.sentences.values_list("index", "text"))
    for result in combine(outputs, config, embed, texts):
        [row] = store_detections(report, [result.detection], flagged=result.flagged)
        row.sources.set([rows[name][j] for name, j in result.members])
    rf.finish_pipeline(study)
    return study


def panel(client, study, index):
    html = client.get(f"/studies/{study.pk}/").content.decode()
    return html[html.index(f'id="panel-{index}"'):].split("</article>")[0]


def text_of(html):
    words = " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())
    return re.sub(r" ([,.;])", r"\1", words)


def test_a_calibrated_radflag_flag_below_the_combinations_threshold_is_shown_with_its_calibration(
        radiologist_client, api_client):
    study = combined_study(lambda report: [radflag_on(report, CLEAR)])
    flag_row = Detection.objects.get(report__study=study, detector="combined")
    assert flag_row.confidence < 0.3 and flag_row.flagged  # 0.58 after three silent detectors

    words = text_of(panel(radiologist_client, study, CLEAR))
    assert "0.15 score" in words and "This is a score, not a probability" in words
    assert "RadFlag: flagged at λ1 = 6 of 10, calibration v3, α = 0.1" in words
    assert ("Flagged because RadFlag's calibrated flag, shown whatever the combination scores"
            in words)
    assert ("RadFlag raised it (0.58) after detectors that examined the sentence found nothing; "
            "their silence holds 67% of the vote, so it enters at 0.19.") in words
    assert ("V-RAG examined the sentence and raised nothing: its silence counts as 0 with 25% of "
            "the vote, so 0.19 becomes 0.15.") in words
    assert "set by RadFlag (sampling and entailment)" in words

    body = api_client.get(f"/api/studies/{study.pk}/review/").json()
    sentence = body["sentences"][CLEAR]
    assert sentence["number"] == CLEAR + 1 and body["flags"] == 1
    explained = sentence["flag"]["explained"]
    assert explained["kind"] == "score" and explained["guarantees"] == [
        "RadFlag: flagged at λ1 = 6 of 10, calibration v3, α = 0.1"]
    assert explained["members"] == [{"detector": "radflag", "confidence": 0.5833, "harm": "low"}]


def test_a_calibrated_combination_shows_a_probability_beside_each_members_figure(
        radiologist_client):
    mapping = ProbabilityMap((0.0, 0.3), (0.1, 0.72), (40, 25))
    calibration = ScoreCalibration(mapping, 0.5, 0.1, version=2, calibration_id=9)

    def found(report):
        sentence = report.sentences.get(index=EFFUSION)
        return [radflag_on(report, EFFUSION, calibrated=False),
                Found(EFFUSION, sentence.start, sentence.end, "vrag",
                      "Similar images show an opacity.", Harm.HIGH, 0.9)]

    study = combined_study(found, calibration=calibration)
    html = panel(radiologist_client, study, EFFUSION)
    words = text_of(html)
    assert "72% probability of error" in words
    assert "combination calibration v2, α = 0.1; the combined score" in words
    assert "This is a score" not in words
    member_row = r'<tr data-detector="(\w+)"><th scope="row">[^<]*</th><td>([0-9.]+)</td>'
    figures = dict(re.findall(member_row, html))
    assert figures == {"radflag": "0.58", "vrag": "0.90"}
    assert "V-RAG agrees (0.90; explanations" in words
    assert ("Harm: high, the highest of its detectors', set by V-RAG (image retrieval and "
            "probing)") in words
    assert "its probability of error 72% reaches the calibrated display threshold 50%" in words


def test_a_rule_that_removed_a_calibrated_flag_is_named_on_the_sentences_panel(radiologist_client):
    rule = FilterRule("Sampling doubts", "pattern", pattern="samples rarely")
    study = combined_study(lambda report: [radflag_on(report, CLEAR)], rules=[rule])
    words = text_of(panel(radiologist_client, study, CLEAR))
    assert "data-flag" not in words
    assert ("RadFlag flagged this sentence (flagged at λ1 = 6 of 10, calibration v3, α = 0.1); "
            "the site rule “Sampling doubts” removed the flag.") in words


def test_without_the_combination_a_flag_shows_its_detectors_own_score(radiologist_client):
    study = rf.make_review_study(with_combined=False)
    words = text_of(panel(radiologist_client, study, rf.NODULE))
    assert "0.90 score" in words and "the system combination did not run on this report" in words
