"""The hierarchy file (workers/nlp/rules/hierarchy.tsv): every name a rule uses is in it, the
vocabulary's relations are its rows, and its relations answer as a radiologist would."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from workers.contradiction import statement_rules
from workers.nlp import statements
from workers.nlp.findings import extract_findings
from workers.nlp.hierarchy import (
    HIERARCHY,
    HierarchyError,
    contradicts,
    device_kinds,
    is_a,
    load_hierarchy,
    loose,
    needs_follow_up,
    overlapping,
    places_agree,
    places_in,
    position_verdict,
    readings_of_one,
)
from workers.nlp.vocabulary import (
    CONCEPTS,
    GLOBAL_BONE_PHRASE,
    GLOBAL_NORMAL_PHRASE,
    LOCATION_NAMES,
    NORMAL_SUBJECTS,
    PARENTS,
    SIMILAR,
)

ROOT = Path(__file__).resolve().parents[3]
# modules whose string constants name hierarchy concepts (sets of findings a rule reads)
RULE_MODULES = ("workers/nlp/statements.py", "workers/contradiction/statement_rules.py",
                "workers/prior/checks.py")
# names in those constants that are no concept: statement attributes, words and kinds
NOT_CONCEPTS = {"new", "unchanged", "persists", "better", "worse", "gone", "standard",
                "expected", "wrong", "bilateral", "left", "right", "findings", "impression",
                "comparison", "support device"}


def test_every_vocabulary_observation_is_a_finding_of_the_file():
    assert set(HIERARCHY.findings) == {c.name for c in CONCEPTS} | {
        statements.AIRSPACE_OPACITY, statements.LOBAR_COLLAPSE}
    assert all(HIERARCHY.findings[c.name] == c.category for c in CONCEPTS)


def test_the_vocabularys_parents_and_similar_findings_are_the_files_rows():
    assert PARENTS is HIERARCHY.parents and SIMILAR is HIERARCHY.similar
    assert PARENTS["mass"] == ("lesion",) and ("support device",) == PARENTS["chest tube"]


def test_every_normal_statement_the_engine_reads_has_summary_rows():
    phrases = {phrase for _, _, phrase in NORMAL_SUBJECTS} | {GLOBAL_NORMAL_PHRASE,
                                                              GLOBAL_BONE_PHRASE}
    assert phrases - set(HIERARCHY.summaries) == set()
    # a big heart is said of the heart: "enlarged cardiomediastinum" is loose
    assert contradicts("normal mediastinum", "enlarged cardiomediastinum")
    assert not contradicts("normal mediastinum", "cardiomegaly")
    assert statements.NO_ACUTE_ABNORMALITY in HIERARCHY.summaries


def _named_in_frozensets(path: Path) -> set[str]:
    """The strings of every ``frozenset({...})`` literal of a module: the sets of findings
    its rules read."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "frozenset" and node.args \
                and isinstance(node.args[0], (ast.Set, ast.Tuple, ast.List)):
            names.update(e.value for e in node.args[0].elts
                         if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return names


@pytest.mark.parametrize("module", RULE_MODULES)
def test_every_concept_a_rule_names_is_in_the_file(module):
    named = _named_in_frozensets(ROOT / module) - NOT_CONCEPTS - set(LOCATION_NAMES.values())
    assert named - HIERARCHY.nodes == set(), module


def test_the_rules_name_concepts_at_all():
    assert {"nodule", "fracture"} <= _named_in_frozensets(ROOT / RULE_MODULES[0])
    assert "normal heart size" in _named_in_frozensets(ROOT / RULE_MODULES[1])


def test_rule_constants_are_nodes():
    for name in (*statements.COUNTED, statements.AIRSPACE_OPACITY, statements.LOBAR_COLLAPSE,
                 *statement_rules._MANY):
        assert name in HIERARCHY.nodes, name


def test_relations_read_as_a_radiologist_would():
    assert is_a("mass", "lesion") and is_a("consolidation", "airspace opacity")
    assert overlapping("nodule", "mass") and not overlapping("cardiomegaly",
                                                             "enlarged cardiomediastinum")
    assert loose("opacity") and not overlapping("atelectasis", "opacity")
    assert readings_of_one("opacity", "pneumonia") and readings_of_one("consolidation",
                                                                       "pneumonia")
    assert not readings_of_one("atelectasis", "pneumonia")
    assert contradicts("clear lungs", "consolidation") and contradicts("clear lungs",
                                                                      "airspace opacity")
    assert not contradicts("clear lungs", "atelectasis") and not contradicts("clear lungs",
                                                                           "nodule")
    assert contradicts("no acute abnormality", "pleural effusion")  # through its summary
    assert contradicts("no acute osseous abnormality", "fracture")
    assert not contradicts(GLOBAL_NORMAL_PHRASE, "fracture")
    # round 4, from clinical knowledge (docs/audit.md)
    assert contradicts("normal pulmonary vasculature", "vascular congestion")
    assert contradicts("clear pleural spaces", "costophrenic angle blunting")
    assert contradicts("normal heart size", "pericardial effusion")
    assert contradicts("no acute abnormality", "dislocation")
    assert contradicts("no acute abnormality", "subcutaneous emphysema")
    assert not contradicts(GLOBAL_NORMAL_PHRASE, "subcutaneous emphysema")
    for chronic in ("granuloma", "emphysema", "scarring", "calcification"):
        assert not contradicts("clear lungs", chronic)
    for chronic in ("degenerative change", "osteopenia", "scoliosis", "deformity"):
        assert not contradicts("no acute osseous abnormality", chronic)
    assert not contradicts(GLOBAL_NORMAL_PHRASE, "cardiomegaly")
    assert needs_follow_up("nodule") and needs_follow_up("chest tube")
    assert not needs_follow_up("atelectasis")


def test_places_and_tube_positions():
    assert [p for p, _, _ in places_in("tip in the lower SVC")] == ["lower superior vena cava"]
    assert [p for p, _, _ in places_in("side hole outside the pleural space")] == ["chest wall"]
    assert position_verdict("endotracheal tube", "carina") == "wrong"
    assert position_verdict("enteric tube", "stomach") == "expected"
    assert position_verdict("central venous catheter", "lower superior vena cava") == "expected"
    assert position_verdict("central venous catheter", "distal pulmonary artery") == "wrong"
    assert position_verdict("central venous catheter", "main pulmonary artery") is None
    assert places_agree("lower superior vena cava", "cavoatrial junction")
    assert not places_agree("main pulmonary artery", "distal pulmonary artery")
    assert not places_agree("stomach", "esophagus")
    assert device_kinds("central venous catheter", "right PICC") == {"picc"}
    assert device_kinds("central venous catheter", "right IJ line") == {"jugular line"}


def test_every_place_a_device_belongs_at_is_a_written_place():
    for places in (*HIERARCHY.expected_at.values(), *HIERARCHY.wrong_at.values()):
        assert places <= set(HIERARCHY.places)
    assert set(HIERARCHY.places) <= set(HIERARCHY.written)
    assert set(HIERARCHY.device_kinds) <= set(HIERARCHY.written)


def test_a_malformed_row_names_its_line(tmp_path):
    bad = tmp_path / "h.tsv"
    bad.write_text("# comment\nrelation\tconcept\tother\twhy\nis_like\ta\tb\twhy\n")
    with pytest.raises(HierarchyError, match="h.tsv:3"):
        load_hierarchy(bad)


def test_a_new_row_is_read(tmp_path):
    extra = tmp_path / "h.tsv"
    extra.write_text((ROOT / "workers/nlp/rules/hierarchy.tsv").read_text()
                     + "summary\tclear lungs\tnodule\ta clinician's extension\n")
    assert "nodule" in load_hierarchy(extra).summaries["clear lungs"]


def test_the_summaries_match_what_the_engine_implies():
    # a normal statement's implied findings carry the phrase the summary rows are keyed by
    cues = {f.cue for f in extract_findings("Lungs are clear. The pleural spaces are clear. "
                                            "No acute cardiopulmonary process.") if f.implied}
    assert cues <= set(HIERARCHY.summaries)
