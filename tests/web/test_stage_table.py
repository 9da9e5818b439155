"""The registry of stages: every app's stages are registered once the apps are loaded, each
with its three parts; study stages come in the declared pipeline order; the registry refuses a
study stage without a place in that order and a second stage under a taken name; and a stage's
model roles include those of the detectors declared for it."""
import dataclasses
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from radreview.jobs import stages
from radreview.jobs.stages import STAGES, Stage, plan, study_stages
from workers.backends import registry
from workers.detectors import GENERAL, DetectorSpec, register, unregister
from workers.pipeline import StudyInputs

ROOT = Path(__file__).resolve().parents[2]


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


UNORDERED = Stage("unordered", _nothing, _nothing, _nothing, applies=lambda s: True)


def test_a_declared_stage_is_imported_at_its_first_lookup(monkeypatch):
    table = stages.StageTable()
    monkeypatch.setattr(stages, "STAGES", table)
    stages.declare(audit="radreview.detectors.audit_stage:AUDIT",
                   combine="radreview.detectors.combine_stage:COMBINE")
    stages.declare(audit="radreview.detectors.audit_stage:AUDIT")  # a second ready(): no change
    assert list(table) == ["audit", "combine"] and "audit" in table and "vrag" not in table
    from radreview.detectors import audit_stage  # noqa: PLC0415 - the module the table imports

    assert table["audit"] is audit_stage.AUDIT
    with pytest.raises(ImproperlyConfigured, match="registered as 'audit'"):
        stages.declare(audit="radreview.detectors.combine_stage:COMBINE")
    stages.declare(tidy="radreview.detectors.combine_stage:COMBINE")
    with pytest.raises(ImproperlyConfigured, match="declared as 'tidy'"):
        table["tidy"]
    del table["tidy"]
    stages.declare(unordered=f"{__name__}:UNORDERED")
    with pytest.raises(ImproperlyConfigured, match="place in STUDY_ORDER"):
        table["unordered"]
    with pytest.raises(KeyError):
        table["nothing"]


def test_django_starts_without_importing_a_stage_module(tmp_path):
    """Stage modules load what their work needs (pydicom, faiss, the image memory); a process
    that runs no stage (a command such as label_reports) does not import them."""
    declared = {where.partition(":")[0] for where in STAGES._declared.values()}
    # the reference import's stage names its job for the library's admin page, and imports
    # nothing that admin page does not
    declared = sorted(declared - {"radreview.library.text_stage"})
    assert len(declared) >= 10
    probe = ("import sys, django; django.setup(); "
             f"print(sorted(m for m in {declared!r} + ['pydicom', 'scipy.optimize'] "
             "if m in sys.modules))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "radreview.settings",
           "RADREVIEW_DATA_DIR": str(tmp_path)}
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
