"""The combination's score read as a probability of error until a site has calibrated it on its
own radiologists' decisions: the map fitted on the bundled benchmarks and shipped with the app
(benchmark_calibration.json, made by bench/benchmark_calibration.py; docs/audit.md). It gives the
review page one number per flag, labelled as calibrated on the benchmarks; it never decides
whether a sentence is flagged (the site's threshold does, until its own calibration)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .calibration import ProbabilityMap

SHIPPED = Path(__file__).with_name("benchmark_calibration.json")


@dataclass(frozen=True)
class BenchmarkCalibration:
    mapping: ProbabilityMap
    sets: tuple[str, ...]
    sentences: int

    def probability(self, score: float) -> float:
        return self.mapping(score)

    def describe(self) -> dict:
        """For a combined detection's evidence."""
        return {"calibrated_on": "benchmarks", "sets": list(self.sets),
                "sentences": self.sentences}


@cache
def shipped() -> BenchmarkCalibration | None:
    """The shipped map (read once per process), or None when the file is absent."""
    if not SHIPPED.exists():
        return None
    data = json.loads(SHIPPED.read_text())
    return BenchmarkCalibration(ProbabilityMap.from_dict(data["map"]), tuple(data["sets"]),
                                int(data["sentences"]))
