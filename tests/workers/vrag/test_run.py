"""V-RAG for a study: a detection per disagreement, its evidence, the rewritten report."""
from __future__ import annotations

import json

import pytest

from tests.support import dicom_factory as dicom
from tests.support import image_alterations as alt
from tests.support.fake_llm_server import FakeServer, Reply, completion
from workers.backends.builtin import AppearanceDescriptorEncoder, RuleExtractor
from workers.backends.openai_http import OpenAITextModel
from workers.backends.spec import parse_spec
from workers.detectors import DETECTORS
from workers.imagememory import QueryImage, load_pixels
from workers.pipeline import StageError
from workers.study import StudyContext
from workers.study.images import StudyImages
from workers.vrag.run import run_vrag

ENCODER = AppearanceDescriptorEncoder()
DRAFT = ("FINDINGS: Moderate cardiomegaly. No pleural effusion. No pneumothorax.\n"
         "IMPRESSION: Cardiomegaly.")


def query(tmp_path, studies, index=1) -> tuple[QueryImage, ...]:
    """A slightly noisy copy of a reference study's views (study 2: small left effusion)."""
    images = []
    for image in studies[index].images:
        pixels = alt.noise(load_pixels(image.path), 0.02)
        path = tmp_path / f"{image.view}.dcm"
        path.write_bytes(dicom.make_dicom(density=pixels, rows=pixels.shape[0],
                                          cols=pixels.shape[1], view=image.view))
        images.append(QueryImage(str(path), "dicom", image.view))
    return tuple(images)


def run(index_dir, images, report, **roles):
    ctx = StudyContext(report, images=StudyImages(images, index_dir=str(index_dir)))
    return run_vrag(ctx, image_encoder=ENCODER, extractor=RuleExtractor(), **roles)


def test_each_entity_whose_probe_disagrees_with_the_report_is_flagged(reference_library,
                                                                      tmp_path):
    studies, index_dir = reference_library
    result = run(index_dir, query(tmp_path, studies), DRAFT)
    assert len(result.neighbours) == 5 and result.neighbours[0]["external_id"] == "ref-2"
    assert result.encoder == "builtin-appearance-v1" and result.encoder_learned is False
    probed = {p["entity"]: p["answer"] for p in result.probes}
    assert probed["pleural effusion"] == "yes" and probed["cardiomegaly"] == "no"
    assert probed["pneumothorax"] == "no"           # agrees with the report: no detection
    assert "atelectasis" in probed                   # from a retrieved report, not the draft

    by_sentence = {d.sentence_index: d for d in result.detections}
    assert sorted(by_sentence) == [0, 1, 3]          # both sentences stating cardiomegaly
    effusion = by_sentence[1]
    assert effusion.detector == "vrag" and effusion.harm.value in ("medium", "high")
    evidence = effusion.evidence
    assert (evidence["entity"], evidence["question"], evidence["answer"],
            evidence["report_says"]) == ("pleural effusion", "Is there a pleural effusion?",
                                         "yes", "absent")
    first = evidence["neighbours"][0]
    assert {"reference_id", "image_id", "similarity", "says", "excerpt"} <= set(first)
    declared = set(DETECTORS["vrag"].evidence_fields())
    assert all(set(d.evidence) <= declared for d in result.detections)
    assert (first["external_id"], first["says"]) == ("ref-2", "present")
    assert "ref-2" in effusion.explanation and "rules it out" in effusion.explanation
    assert effusion.suggestion == "Small left pleural effusion."
    cardiomegaly = by_sentence[0]
    assert cardiomegaly.suggestion == ""             # nothing left of the sentence
    assert "ref-2" in cardiomegaly.explanation and "states it" in cardiomegaly.explanation
    json.dumps([d.to_dict() for d in result.detections])  # evidence is plain JSON


def test_the_rewrite_follows_the_probe_answers(reference_library, tmp_path):
    studies, index_dir = reference_library
    result = run(index_dir, query(tmp_path, studies), DRAFT)
    assert result.rewrite_model is None
    assert result.rewrite == ("FINDINGS: Small left pleural effusion. No pneumothorax.\n"
                              "IMPRESSION: Small left pleural effusion.")


def test_a_report_that_agrees_with_its_neighbours_is_left_alone(reference_library, tmp_path):
    studies, index_dir = reference_library
    report = studies[1].report
    result = run(index_dir, query(tmp_path, studies), report)
    assert result.detections == [] and result.rewrite == report.strip()


def test_an_omitted_finding_is_added_to_the_rewrite(reference_library, tmp_path):
    studies, index_dir = reference_library
    result = run(index_dir, query(tmp_path, studies), "FINDINGS: Heart size is normal.")
    assert result.omissions == ["small left pleural effusion"]
    assert result.rewrite == "FINDINGS: Heart size is normal. Small left pleural effusion."


def test_with_an_llm_the_probes_and_the_rewrite_come_from_it(reference_library, tmp_path):
    studies, index_dir = reference_library

    def reply(body):
        content = body["messages"][-1]["content"]
        if "Draft report:" in content:
            return Reply(body=completion("FINDINGS: Small left pleural effusion."))
        answer = "no" if "cardiomegaly" in content.split("Question")[1] else "yes"
        return Reply(body=completion(json.dumps({"answer": answer, "reason": "r"})))

    with FakeServer() as server:
        server.script = reply
        llm = OpenAITextModel(parse_spec("llm", f"openai:{server.url}?model=fake-llm"))
        result = run(index_dir, query(tmp_path, studies), DRAFT, llm=llm)
    assert all(p["method"] == "llm" for p in result.probes)
    assert {d.model for d in result.detections} == {"fake-llm"}
    assert {d.prompt_version for d in result.detections} == {"vrag_probe/v1"}
    assert result.rewrite == "FINDINGS: Small left pleural effusion."
    assert result.rewrite_prompt_version == "vrag_rewrite/v1"


def test_an_empty_memory_stops_the_stage_plainly(tmp_path):
    image = tmp_path / "a.png"
    image.write_bytes(dicom.make_png(seed=1))
    with pytest.raises(StageError, match="The image memory is empty"):
        run(tmp_path / "indexes", (QueryImage(str(image), "png"),), DRAFT)
