"""Studies whose detections went through the real system combination (workers.combine), stored
as the combine stage stores them: for tests of what the review page says about a flag."""
import numpy as np

from radreview.review.services import store_detections
from tests import factories
from tests.web.review import factories as rf
from workers.combine import CombinationConfig, DetectorOutput, combine
from workers.types import Detection as Found
from workers.types import Harm

REPORT = "FINDINGS: Heart size is normal. Clear lungs. No pleural effusion."
CLEAR, EFFUSION = 1, 2
SAMPLES_SAY = "The generator's own samples rarely say this: supported by 4 of 10 samples."
VECTORS = {SAMPLES_SAY: [1, 0], "Similar images show an opacity.": [0.9, 0.44]}


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


def vrag_on(report, index, confidence=0.9):
    sentence = report.sentences.get(index=index)
    return Found(index, sentence.start, sentence.end, "vrag", "Similar images show an opacity.",
                 Harm.HIGH, confidence)


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
