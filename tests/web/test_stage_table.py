"""The one table of stages: every stage has its three parts, study stages come in pipeline
order, and a stage's model roles include those of the detectors declared for it."""
from dataclasses import dataclass

from radreview.jobs.stages import STAGES, STUDY_STAGES, plan
from workers.backends import registry
from workers.detectors import GENERAL, DetectorSpec, register, unregister
from workers.pipeline import StudyInputs


@dataclass(frozen=True)
class Nothing:
    pass


def test_every_stage_has_its_three_parts_and_study_stages_come_in_order():
    assert all(callable(s.load) and callable(s.compute) and callable(s.store)
               for s in STAGES.values())
    assert [s.name for s in STUDY_STAGES] == ["ingest", "sample", "parse_report", "radflag",
                                              "audit", "vrag", "rarrg", "combine"]
    assert [s.name for s in plan(StudyInputs(has_images=False, has_report=True))] == [
        "parse_report", "audit", "combine"]


def test_a_detector_brings_its_model_roles_and_their_queue_to_its_stage(monkeypatch):
    assert "generator" not in STAGES["audit"].roles and STAGES["audit"].queue == "cpu"
    register(DetectorSpec(name="drafter", label="Drafter", stage="audit", roles=("generator",),
                          scope=GENERAL, evidence=Nothing, run=lambda *a: []))
    try:
        assert STAGES["audit"].roles[-1] == "generator"
        local = type("Spec", (), {"kind": "transformers"})()
        monkeypatch.setattr(registry, "spec_for", lambda role: local if role == "generator"
                            else type("Spec", (), {"kind": "builtin"})())
        assert STAGES["audit"].queue == "gpu"  # the generator runs local weights
    finally:
        unregister("drafter")
    assert "generator" not in STAGES["audit"].roles
