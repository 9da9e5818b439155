"""The detector registry: what it declares, what it refuses, the evidence each built-in
detector really emits against its declared dataclass, and docs/detections.md against it."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from workers.detectors import (
    DETECTORS,
    GENERAL,
    SINGLE_PURPOSE,
    DetectorError,
    DetectorSpec,
    docs,
    in_stage,
    load_plugins,
    register,
    stage_roles,
    unregister,
)
from workers.pipeline import RoleModels, StageError
from workers.radflag import Thresholds
from workers.study.context import StudyContext


@dataclass(frozen=True)
class NoEvidence:
    pass


def spec(name="toy", **overrides) -> DetectorSpec:
    fields = dict(name=name, label="Toy", stage="audit", roles=(), scope=GENERAL,
                  evidence=NoEvidence, run=lambda inputs, models, progress: [])
    return DetectorSpec(**{**fields, **overrides})


PLUGIN = spec("plugin_toy", label="Plugin toy")


def test_the_built_in_detectors_are_declared_in_fold_order():
    assert list(DETECTORS) == ["correction", "judge", "comparative", "radflag", "vrag", "rarrg",
                               "contradiction", "prior"]
    assert [s.name for s in in_stage("audit")] == ["correction", "judge", "comparative",
                                                   "contradiction", "prior"]
    assert DETECTORS["comparative"].scope == SINGLE_PURPOSE
    assert DETECTORS["comparative"].needs_no_prior
    assert DETECTORS["prior"].scope == SINGLE_PURPOSE and DETECTORS["prior"].needs_prior_report
    assert DETECTORS["prior"].weight == DETECTORS["contradiction"].weight == 4.0
    assert stage_roles("audit") == ("llm", "extractor")
    assert DETECTORS["vrag"].templates == ["review/evidence/vrag.html",
                                           "review/evidence/generic.html"]


def test_a_registered_detector_joins_its_stage_and_a_second_of_that_name_is_refused():
    toy = register(spec(roles=("text_embedder",)))
    try:
        assert DETECTORS["toy"] is toy and in_stage("audit")[-1] is toy
        assert stage_roles("audit") == ("llm", "extractor", "text_embedder")
        with pytest.raises(DetectorError, match="already registered"):
            register(spec())
    finally:
        unregister("toy")
    assert "toy" not in DETECTORS


@pytest.mark.parametrize("overrides, problem", [
    ({"name": "combined"}, "other than 'combined'"),
    ({"name": "two words"}, "identifier"),
    ({"scope": "narrow"}, "scope"),
    ({"roles": ("oracle",)}, "unknown model roles"),
    ({"evidence": dict}, "dataclass"),
])
def test_a_malformed_spec_is_refused_with_its_reason(overrides, problem):
    with pytest.raises(DetectorError, match=problem):
        spec(**overrides)


def test_plugins_are_named_module_colon_attribute():
    try:
        assert load_plugins([f"{__name__}:PLUGIN"]) == [PLUGIN]
        assert DETECTORS["plugin_toy"] is PLUGIN
    finally:
        unregister("plugin_toy")
    with pytest.raises(DetectorError, match="module:attribute"):
        load_plugins([__name__])
    with pytest.raises(DetectorError, match="is not a DetectorSpec"):
        load_plugins([f"{__name__}:NoEvidence"])
    with pytest.raises(DetectorError, match="cannot be loaded: .*no_such_module"):
        load_plugins(["no_such_module:SPEC"])
    with pytest.raises(DetectorError, match="cannot be loaded: .*NOT_THERE"):
        load_plugins([f"{__name__}:NOT_THERE"])


def test_a_stage_gets_only_the_models_it_declared():
    models = RoleModels(("llm",))
    assert models["llm"] is None  # the built-in rule engine
    with pytest.raises(StageError, match="'generator' was not declared"):
        models.get("generator")


def emitted(detections) -> set[str]:
    return {key for d in detections for key in d.evidence}


def test_the_text_detectors_emit_the_evidence_they_declare():
    report = ("FINDINGS: Large left pleural effusion. No pleural effusion. The heart is "
              "unchanged compared to the prior exam.\nIMPRESSION: Right pleural effusion.")
    ctx = StudyContext(report, has_prior=False)
    # the prior report checks look only when the prior report is given
    with_prior = StudyContext(report, prior_report="FINDINGS: The lungs are clear.\n"
                                                    "IMPRESSION: 9 mm right upper lobe nodule.")
    models = RoleModels(stage_roles("audit"))
    for detector in in_stage("audit"):
        found = detector.run(with_prior if detector.needs_prior_report else ctx, models,
                             lambda *a: None)
        assert found, f"{detector.name} found nothing in a report made to trip it"
        assert {d.detector for d in found} == {detector.name}
        assert emitted(found) <= set(detector.evidence_fields()), detector.name


def test_radflag_emits_the_evidence_it_declares():
    samples = tuple("FINDINGS: No pleural effusion." for _ in range(5))
    ctx = StudyContext("FINDINGS: Small left pleural effusion.", samples=samples,
                       settings={"radflag": {"thresholds": Thresholds(lambda1=3, lambda2=1,
                                                                      n_samples=5)}})
    result = DETECTORS["radflag"].run(ctx, RoleModels(("llm",)), lambda *a: None)
    assert [d.sentence_index for d in result.detections] == [0]
    assert emitted(result.detections) == set(DETECTORS["radflag"].evidence_fields())


def test_docs_detections_md_lists_what_the_registry_declares():
    text = docs.DOC.read_text(encoding="utf-8")
    assert docs.render() in text, "run python -m workers.detectors.docs"
    for name, detector in DETECTORS.items():
        assert f"### `{name}` — {detector.label}" in text
        for field in detector.evidence_fields():
            assert f"| `{field}` |" in text


def test_the_docs_check_fails_when_the_registry_changed(tmp_path, monkeypatch):
    copy = tmp_path / "detections.md"
    copy.write_text(docs.DOC.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(docs, "DOC", copy)
    assert docs.main(["--check"]) == 0
    register(spec())
    try:
        assert docs.main(["--check"]) == 1
        assert docs.main([]) == 0 and "### `toy` — Toy" in copy.read_text(encoding="utf-8")
    finally:
        unregister("toy")
