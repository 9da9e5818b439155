"""The registry of stages: every app's stages are registered once the apps are loaded, each
with its three parts; study stages come in the declared pipeline order; the registry refuses a
study stage without a place in that order and a second stage under a taken name; and a stage's
model roles include those of the detectors declared for it."""
import dataclasses
from dataclasses import dataclass

import pytest
from django.core.exceptions import ImproperlyConfigured

from radreview.jobs import stages
from radreview.jobs.stages import STAGES, Stage, plan, study_stages
from workers.backends import registry
from workers.detectors import GENERAL, DetectorSpec, register, unregister
from workers.pipeline import StudyInputs


@dataclass(frozen=True)
class Nothing:
    pass


def test_every_stage_has_its_three_parts_and_study_stages_come_in_order():
    assert all(callable(s.load) and callable(s.compute) and callable(s.store)
               for s in STAGES.values())
    assert [s.name for s in study_stages()] == ["ingest", "sample", "parse_report", "radflag",
                                              "audit", "vrag", "rarrg", "combine"]
    assert [s.name for s in plan(StudyInputs(has_images=False, has_report=True))] == [
        "parse_report", "audit", "combine"]


def test_the_apps_register_the_site_jobs():
    assert {"probe_role", "calibrate", "import_reference", "import_reference_images",
            "rebuild_image_index", "pacs_import", "compare_draft"} <= set(STAGES)
    assert STAGES["calibrate"].roles == ("llm",)


def _nothing(*args):
    return None


def test_the_registry_refuses_a_stage_out_of_place_or_under_a_taken_name(monkeypatch):
    monkeypatch.setattr(stages, "STAGES", dict(STAGES))
    site_job = Stage("tidy", _nothing, _nothing, _nothing)
    stages.register(site_job, site_job)  # the same again, as a second ready() would: no change
    assert stages.STAGES["tidy"] is site_job
    with pytest.raises(ImproperlyConfigured, match="registered as 'tidy'"):
        stages.register(Stage("tidy", _nothing, _nothing, _nothing, ("llm",)))
    with pytest.raises(ImproperlyConfigured, match="place in STUDY_ORDER"):
        stages.register(Stage("unordered", _nothing, _nothing, _nothing, applies=lambda s: True))
    with pytest.raises(ImproperlyConfigured, match="place in STUDY_ORDER"):
        stages.register(dataclasses.replace(STAGES["audit"], applies=Stage.applies))  # a site job
    del stages.STAGES["vrag"]
    with pytest.raises(ImproperlyConfigured, match="'vrag'"):
        plan(StudyInputs(has_images=True, has_report=True))


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
