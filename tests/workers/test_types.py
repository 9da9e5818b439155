"""Detection.to_dict: what dataclasses.asdict gave, as a copy the caller may change."""
from dataclasses import asdict, dataclass

import numpy as np

from workers.types import Detection, Harm


@dataclass
class Phrase:
    text: str
    score: float


def test_to_dict_is_asdict_with_the_harm_as_text():
    evidence = {"rule": "polarity", "counts": [3, 1], "span": (4, 9), "phrase": Phrase("x", 0.5),
                "nested": {"neighbours": [{"id": 7, "text": "No effusion."}]},
                "score": np.float32(0.25), None: None, 1: True}
    detection = Detection(2, 4, 9, "judge", "why", Harm.HIGH, 0.7, evidence, suggestion="s")
    expected = asdict(detection)
    expected["harm"] = "high"
    data = detection.to_dict()
    assert data == expected
    assert list(data) == list(expected)
    assert data["evidence"]["phrase"] == {"text": "x", "score": 0.5}
    assert type(data["evidence"]["span"]) is tuple
    # a copy: changing it leaves the detection alone
    data["evidence"]["nested"]["neighbours"].append("more")
    data["evidence"]["counts"][0] = 0
    assert detection.evidence["nested"]["neighbours"] == [{"id": 7, "text": "No effusion."}]
    assert detection.evidence["counts"] == [3, 1]
